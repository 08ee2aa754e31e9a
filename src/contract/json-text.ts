/**
 * An answer already serialised, for a query that builds its text from parts kept as text (a
 * list's records): the HTTP layer sends it as it is. `T` is the answer it stands for.
 */
export class JsonText<T> {
  declare private readonly answer?: T;
  constructor(readonly text: string) {}
}
