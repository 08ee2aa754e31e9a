/**
 * An answer already serialised, for a query that builds its text from parts kept as text (a
 * list's records): the HTTP layer sends it as it is. `T` is the answer it stands for. `bytes`:
 * its UTF-8, made once where the parts are joined (a list answer is about 14 KB; built as a
 * string it was copied three more times on its way out: flattened, prefixed with the headers,
 * encoded), kept out of the JavaScript heap, whose young generation it would otherwise fill.
 */
export class JsonText<T> {
  declare private readonly answer?: T;
  constructor(readonly bytes: Buffer) {}

  get text(): string {
    return this.bytes.toString('utf8');
  }
}
