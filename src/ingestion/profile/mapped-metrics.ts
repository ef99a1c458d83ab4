import { summarizeColumns } from "../mapping/columns.js";
import type { AmbiguousColumnResolution, ColumnMapping } from "../mapping/model.js";
import { recommendMappings } from "../mapping/recommend.js";
import { NUMBER_FORMAT_DOT } from "./number-shape.js";
import type { ColumnDefinition, FilePreview, Metric, MetricState, TabularFileInfo } from "../types.js";

const AMOUNT_FIELDS = new Set(["debit", "credit", "amount"]);

function share(count: number, rows: number): MetricState {
  if (count === 0) return "PASS";
  return count <= rows * 0.01 ? "WARN" : "FAIL";
}

/**
 * Data validation metrics that need to know which column is which field: blank required values,
 * unparseable dates and amounts under the chosen formats, debits not equal to credits (or a
 * signed amount not summing to zero). Computed from the column statistics, no second pass.
 */
export function mappedMetrics(fileInfo: TabularFileInfo, mappings: ColumnMapping[], resolutions: AmbiguousColumnResolution[], definitions: ColumnDefinition[]): Record<string, Metric> {
  const columns = new Map(summarizeColumns(fileInfo).map((c) => [c.position, c]));
  const data = new Map(fileInfo.columnData.map((c) => [c.position, c]));
  const byField = new Map(definitions.map((d) => [d.platformFieldName, d]));
  const rows = fileInfo.rowCount;
  const formatOf = (position: number) => resolutions.find((r) => r.position === position)?.selectedFormat ?? columns.get(position)?.detectedFormat ?? null;

  const blanks: Record<string, number> = {};
  const blankPreviews: FilePreview[] = [];
  const badDates: Record<string, number> = {};
  const badAmounts: Record<string, number> = {};
  const datePreviews: FilePreview[] = [];
  const amountPreviews: FilePreview[] = [];
  const sums: Record<string, number> = {};
  for (const mapping of mappings) {
    const definition = mapping.platformField ? byField.get(mapping.platformField) : undefined;
    const column = columns.get(mapping.position);
    if (!definition || !column) continue;
    const field = definition.platformFieldName;
    if (definition.required && !definition.allowBlanks && !(AMOUNT_FIELDS.has(field) && field !== "amount") && column.blank > 0) {
      blanks[field] = column.blank;
      const m = data.get(mapping.position)?.columnMetadata;
      blankPreviews.push(...((m?.densityMetrics ?? m?.blanks)?.dataPreviews ?? []));
    }
    const format = formatOf(mapping.position);
    if (definition.type === "DATE" || definition.type === "NUMBER" || definition.type === "FLOAT64") {
      const valid = format ? (column.validCounts[format] ?? 0) : 0;
      const bad = Math.max(0, column.nonBlank - valid);
      const previews = data.get(mapping.position)?.columnMetadata.unparseableValues?.dataPreviews ?? [];
      if (definition.type === "DATE") {
        badDates[field] = bad;
        if (bad > 0) datePreviews.push(...previews);
      } else {
        badAmounts[field] = bad;
        if (bad > 0) amountPreviews.push(...previews);
        if (AMOUNT_FIELDS.has(field)) sums[field] = column.sums[format ?? NUMBER_FORMAT_DOT] ?? 0;
      }
    }
  }
  const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const metrics: Record<string, Metric> = {
    blankRequiredValues: { state: share(total(blanks), rows), count: total(blanks), dataPreviews: blankPreviews.slice(0, 10), fields: blanks },
    unparseableDates: { state: share(total(badDates), rows), count: total(badDates), dataPreviews: datePreviews.slice(0, 10), fields: badDates },
    unparseableAmounts: { state: share(total(badAmounts), rows), count: total(badAmounts), dataPreviews: amountPreviews.slice(0, 10), fields: badAmounts },
  };
  if ("debit" in sums || "credit" in sums) {
    const debits = sums.debit ?? 0;
    const credits = sums.credit ?? 0;
    metrics.debitsNotEqualCredits = { state: debits === credits ? "PASS" : "FAIL", count: Math.abs(debits - credits), dataPreviews: [], debitTotal: debits, creditTotal: credits };
  } else if ("amount" in sums) {
    const net = sums.amount;
    metrics.debitsNotEqualCredits = { state: net === 0 ? "PASS" : "FAIL", count: Math.abs(net), dataPreviews: [], netAmount: net };
  }
  return metrics;
}

/** The file info with the mapping-dependent metrics of the recommended mapping added to `tableMetadata`. */
export function withRecommendedMetrics(fileInfo: TabularFileInfo, definitions: ColumnDefinition[]): TabularFileInfo {
  const recommendation = recommendMappings(summarizeColumns(fileInfo), definitions, { delimiter: fileInfo.delimiter });
  const metrics = mappedMetrics(fileInfo, recommendation.columnMappings, recommendation.ambiguousColumnResolutions, definitions);
  return { ...fileInfo, tableMetadata: { ...fileInfo.tableMetadata, ...metrics } };
}
