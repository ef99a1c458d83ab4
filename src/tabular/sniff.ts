/** Delimiters a quick guess chooses from, most usual first (the first wins a tie). */
const CANDIDATES = [",", ";", "\t", "|"];

/**
 * The candidate delimiter most frequent in `text` ("," when none occurs): the quick guess for small
 * files read without the ingestion engine's inspection (its byte-level sniffing is in
 * src/ingestion/csv/sniff.ts).
 */
export function guessDelimiter(text: string): string {
  let best = CANDIDATES[0];
  let bestCount = 0;
  for (const candidate of CANDIDATES) {
    const count = text.split(candidate).length - 1;
    if (count > bestCount) (best = candidate), (bestCount = count);
  }
  return best;
}
