/**
 * Parent cycles among categories, without a database: the batch's links laid over the stored ones.
 * Each category has at most one parent, so the links form a functional graph whose only cycles are
 * simple loops; the stored tree has none (every write goes through here), so any loop runs through
 * the batch.
 */

export interface CategoryLink { code: string; parentCode?: string | null | undefined }

/**
 * The batch's categories that cannot be stored because they close a parent cycle, each with the
 * cycle as seen from it (`["A", "B", "A"]`). Every batch category on a loop is refused: none of
 * them can be stored without the others closing the loop, and no choice among them would be
 * anything but arbitrary. A refused category keeps its stored parent, which can close another
 * loop with the remaining batch (stored A → E, batch A → B, B → A, E → A: A and B are refused,
 * then E → A → E is a loop and E is refused too), so this repeats until no loop is left.
 *
 * `stored` maps stored codes to their parent (null for a root); it must hold every stored row
 * reachable by parent links from the batch's codes and parent codes. A code in neither is an
 * unknown parent and ends the walk.
 */
export function parentCycles(batch: readonly CategoryLink[], stored: ReadonlyMap<string, string | null>): Map<string, string[]> {
  const pending = new Map<string, string | null>();
  for (const link of batch) pending.set(link.code, link.parentCode ?? null);
  const refused = new Map<string, string[]>();
  const parentOf = (code: string): string | null =>
    (pending.has(code) ? pending.get(code) : stored.get(code)) ?? null;

  for (;;) {
    let more = false;
    for (const loop of findLoops([...pending.keys()], parentOf)) {
      loop.forEach((code, i) => {
        if (!pending.has(code)) return;
        refused.set(code, [...loop.slice(i), ...loop.slice(0, i), code]);
        more = true;
      });
    }
    // A loop of stored rows alone (only SQL by hand could make one) refuses nothing and ends the search.
    if (!more) return refused;
    for (const code of refused.keys()) pending.delete(code);
  }
}

/** Every loop reachable from `starts`, each once, in walk order. */
function findLoops(starts: readonly string[], parentOf: (code: string) => string | null): string[][] {
  const done = new Set<string>();
  const loops: string[][] = [];
  for (const start of starts) {
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let code: string | null = start;
    while (code !== null && !done.has(code)) {
      const seenAt = onPath.get(code);
      if (seenAt !== undefined) {
        loops.push(path.slice(seenAt));
        break;
      }
      onPath.set(code, path.length);
      path.push(code);
      code = parentOf(code);
    }
    for (const visited of path) done.add(visited);
  }
  return loops;
}
