/**
 * Libraries only rare requests need, imported on first use instead of at start-up: exceljs alone
 * adds ~20 MB to the resident memory of an idle server (docs/benchmarks.md, files section).
 */
export async function loadExcelJs() {
  return (await import("exceljs")).default;
}
