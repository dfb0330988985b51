/**
 * The key rule of the interface's search document, owned here because products and their pictures
 * are the catalogue's: `{masterProductNo}_{colour}`, lowercased, spaces and slashes replaced by
 * underscores. Two colours that differ only in case, spaces or slashes ("Navy Blue", "navy/blue")
 * are one colourway. Pictures sent for a whole master product are keyed `{masterProductNo}` by the
 * same rule. The database applies the same rule as `colourway_key()` (migration 1764000003750).
 */
export function colourwayKey(masterProductNo: string, colour?: string | null): string {
  const text = colour === undefined || colour === null ? masterProductNo : `${masterProductNo}_${colour}`;
  return text.toLowerCase().replace(/[ /]/g, '_');
}
