/**
 * The check every decision table of the suite makes before its rows are walked: its leading
 * columns (the case: caller, resource kind, change...) take every combination of the values each
 * may have exactly once — no case left out, none written twice, none outside the dimensions.
 *
 *   expectEveryCaseOnce(table, Object.keys(callers), KINDS, CHANGES)
 *
 * checks the first three columns of each row against those three lists, in that order.
 */
export function expectEveryCaseOnce(
  rows: readonly (readonly unknown[])[],
  ...dimensions: readonly (readonly unknown[])[]
): void {
  const keyOf = (values: readonly unknown[]) => JSON.stringify(values);
  const everyCase = dimensions.reduce<unknown[][]>(
    (cases, values) => cases.flatMap((c) => values.map((v) => [...c, v])),
    [[]],
  );

  const written = rows.map((row) => keyOf(row.slice(0, dimensions.length))).sort();
  expect(written).toEqual(everyCase.map(keyOf).sort());
}
