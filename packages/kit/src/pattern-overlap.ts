/**
 * Whether two model patterns (`*` matches any run of characters) match a common name: the
 * product of the two patterns read as automata reaches the end of both. Linear in the product of
 * their lengths, with no backtracking, whatever the patterns.
 */
export function patternsOverlap(a: string, b: string): boolean {
  const seen = new Set<number>();
  const width = b.length + 1;
  const pending: Array<[number, number]> = [[0, 0]];
  while (pending.length > 0) {
    const [i, j] = pending.pop() as [number, number];
    if (i === a.length && j === b.length) {
      return true;
    }
    const state = i * width + j;
    if (seen.has(state)) {
      continue;
    }
    seen.add(state);
    const starA = a[i] === '*';
    const starB = b[j] === '*';
    // A `*` may match nothing.
    if (starA) {
      pending.push([i + 1, j]);
    }
    if (starB) {
      pending.push([i, j + 1]);
    }
    // Or both read one character of the common name.
    if (i < a.length && j < b.length) {
      if (starA && !starB) {
        pending.push([i, j + 1]);
      } else if (starB && !starA) {
        pending.push([i + 1, j]);
      } else if (!starA && a[i] === b[j]) {
        pending.push([i + 1, j + 1]);
      }
    }
  }
  return false;
}
