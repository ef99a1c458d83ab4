import { normalizeHeader } from "../formats/common.js";
import { dateOrderOf } from "../profile/date-shape.js";
import { NUMBER_FORMAT_COMMA, NUMBER_FORMAT_DOT } from "../profile/number-shape.js";
import type { ColumnDefinition } from "../types.js";
import type { ColumnSummary } from "./columns.js";
import type { AmbiguousColumnResolution, ColumnMapping } from "./model.js";
import { BARE_SYNONYMS, FIELD_EXCLUSIONS, FIELD_SYNONYMS } from "./synonyms.js";

export interface MappingRecommendation {
  /** One entry per column: AUTO with a platform field, or NOT_MAPPED. */
  columnMappings: ColumnMapping[];
  /** Mapped DATE/NUMBER columns whose format is ambiguous, with the recommended choice. */
  ambiguousColumnResolutions: AmbiguousColumnResolution[];
  /** Required fields left without a column (alternatives considered). */
  unmappedRequiredFields: string[];
  /** Why each mapping was made (score 0..1), for display and tests. */
  scores: { position: number; platformField: string; score: number }[];
}

export interface RecommendOptions {
  /** Order preferred for ambiguous dates when nothing in the file decides (default: from the number format). */
  preferredDateOrder?: "MDY" | "DMY" | "YMD";
  /** The file's delimiter: ";" files usually come from decimal-comma locales. */
  delimiter?: string;
}

const MIN_SCORE = 0.35;

function tokens(text: string): string[] {
  return text.split(" ").filter((t) => t !== "");
}

/** How well a column header names a field: 1 for a known name, less for partial matches, 0 for none. */
export function headerScore(header: string, definition: ColumnDefinition): number {
  return normalizedHeaderScore(normalizeHeader(header), definition);
}

/** A field's names as `headerScore` compares them, normalised and split once per field. */
interface FieldNames {
  /** The field's name with spaces for underscores, then its synonyms. */
  synonyms: string[];
  /** The words of each synonym. */
  synonymWords: string[][];
  own: string;
  exclusions: string[];
}

// Per platform field name: the dictionaries are constants, and a recommendation scores every
// column against every field (normalising and splitting the same synonyms again each time made
// it 3-4 ms per file, twice in the chain from the source request to the effective-date step).
const fieldNamesCache = new Map<string, FieldNames>();

function fieldNames(field: string): FieldNames {
  let names = fieldNamesCache.get(field);
  if (!names) {
    const synonyms = [normalizeHeader(field.replace(/_/g, " ")), ...(FIELD_SYNONYMS[field] ?? [])];
    names = { synonyms, synonymWords: synonyms.map(tokens), own: normalizeHeader(field), exclusions: FIELD_EXCLUSIONS[field] ?? [] };
    fieldNamesCache.set(field, names);
  }
  return names;
}

/** `headerScore` of a header already normalised (`normalizeHeader`). */
function normalizedHeaderScore(norm: string, definition: ColumnDefinition): number {
  if (norm === "") return 0;
  const { synonyms, synonymWords: allWords, own, exclusions } = fieldNames(definition.platformFieldName);
  if (synonyms.includes(norm) || norm === own) return 1;
  const words = tokens(norm);
  if (exclusions.some((x) => words.includes(x) || (x.length > 4 && norm.includes(x)))) return 0;
  const padded = ` ${norm} `;
  let best = 0;
  for (let i = 0; i < synonyms.length; i++) {
    const synonym = synonyms[i];
    const synonymWords = allWords[i];
    if (synonym.length >= 4 || synonymWords.length > 1) {
      // The synonym as a phrase inside the header ("GL Posting Date" contains "posting date").
      if (padded.includes(` ${synonym} `)) best = Math.max(best, 0.6 + 0.3 * (synonymWords.length / words.length));
    }
    const shared = synonymWords.filter((w) => w.length > 2 && words.includes(w)).length;
    if (shared > 0) best = Math.max(best, (0.55 * shared) / Math.max(words.length, synonymWords.length));
  }
  return Math.min(best, 0.95);
}

/** Below a named match: a bare word ("Description") is weaker evidence than a field's own name. */
const BARE_SCORE = 0.5;

/**
 * The score of a bare header word (BARE_SYNONYMS) for a field, among the source type's fields:
 * only when no field claims the header by name (`claimed`) and no other field lists the word too.
 * `norm` is the header normalised.
 */
function bareScore(norm: string, definition: ColumnDefinition, definitions: ColumnDefinition[], claimed: boolean): number {
  if (claimed) return 0;
  if (!(BARE_SYNONYMS[definition.platformFieldName] ?? []).includes(norm)) return 0;
  const listing = definitions.filter((d) => (BARE_SYNONYMS[d.platformFieldName] ?? []).includes(norm));
  return listing.length === 1 ? BARE_SCORE : 0;
}

/** Whether a column's content can hold a field's type (0 vetoes the pair). */
function typeFit(column: ColumnSummary, definition: ColumnDefinition): number {
  const type = definition.type;
  // An empty column still takes a field its header names exactly (FEC's Idevise is often empty).
  if (column.nonBlank === 0) return 0.5;
  if (type === "DATE") return column.type === "DATE" ? 1 : 0;
  if (type === "NUMBER" || type === "FLOAT64") return column.type === "NUMBER" ? 1 : 0;
  if (column.type === "DATE") return 0.3;
  return column.type === "NUMBER" ? 0.9 : 1;
}

interface Candidate {
  position: number;
  field: string;
  score: number;
}

/** Fields that may replace each other: debit+credit (together) versus amount. */
function alternativeGroups(definitions: ColumnDefinition[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const d of definitions) {
    if (!d.alternativeMappings || d.alternativeMappings.length === 0) continue;
    const key = [...d.alternativeMappings].sort().join("|");
    groups.set(key, [...(groups.get(key) ?? []), d.platformFieldName]);
  }
  return [...groups.values()];
}

/** True when the field, or a full group of its alternatives, has a column. */
export function requirementMet(field: ColumnDefinition, mapped: Set<string>, definitions: ColumnDefinition[]): boolean {
  if (mapped.has(field.platformFieldName)) return true;
  const alternatives = field.alternativeMappings ?? [];
  if (alternatives.length === 0) return false;
  // Alternatives that belong to one group must all be mapped (debit AND credit replace amount).
  const groups = alternativeGroups(definitions).filter((g) => g.some((f) => alternatives.includes(f)));
  if (groups.length === 0) return alternatives.some((a) => mapped.has(a));
  return groups.some((g) => g.filter((f) => alternatives.includes(f)).every((f) => mapped.has(f)));
}

export function unmetRequirements(definitions: ColumnDefinition[], mapped: Set<string>): string[] {
  return definitions.filter((d) => d.required && !requirementMet(d, mapped, definitions)).map((d) => d.platformFieldName);
}

/**
 * Recommends a platform field for each column from its header (synonym dictionaries in four
 * languages; bare words like "Description" where the source type gives them one meaning) and its
 * content (detected type), for the fields of one source type. Columns and
 * fields are paired greedily by score; debit/credit pairs and signed amounts are kept exclusive;
 * date columns left without a named field fill the required date fields.
 */
export function recommendMappings(columns: ColumnSummary[], definitions: ColumnDefinition[], options: RecommendOptions = {}): MappingRecommendation {
  const candidates: Candidate[] = [];
  for (const column of columns) {
    const norm = normalizeHeader(column.name);
    const named = definitions.map((definition) => normalizedHeaderScore(norm, definition));
    const claimed = named.some((score) => score >= MIN_SCORE);
    for (const [i, definition] of definitions.entries()) {
      const header = Math.max(named[i], bareScore(norm, definition, definitions, claimed));
      const score = header * typeFit(column, definition);
      if (score >= MIN_SCORE) candidates.push({ position: column.position, field: definition.platformFieldName, score });
    }
  }
  const fieldOrder = new Map(definitions.map((d, i) => [d.platformFieldName, i]));
  candidates.sort((a, b) => b.score - a.score || a.position - b.position || fieldOrder.get(a.field)! - fieldOrder.get(b.field)!);
  const byColumn = new Map<number, Candidate>();
  const byField = new Map<string, Candidate>();
  for (const c of candidates) {
    if (byColumn.has(c.position) || byField.has(c.field)) continue;
    byColumn.set(c.position, c);
    byField.set(c.field, c);
  }
  // Required date fields without a named column take the remaining date columns, left to right.
  for (const definition of definitions) {
    if (definition.type !== "DATE" || !definition.required || byField.has(definition.platformFieldName)) continue;
    const column = columns.find((c) => c.type === "DATE" && !byColumn.has(c.position));
    if (!column) continue;
    const c = { position: column.position, field: definition.platformFieldName, score: 0.4 };
    byColumn.set(c.position, c);
    byField.set(c.field, c);
  }
  resolveAlternatives(definitions, byField, byColumn);

  const columnMappings: ColumnMapping[] = columns.map((column) => {
    const c = byColumn.get(column.position);
    return { position: column.position, field: column.name, platformField: c?.field ?? null, mappingType: c ? "AUTO" : "NOT_MAPPED" };
  });
  const mapped = new Set(byField.keys());
  return {
    columnMappings,
    ambiguousColumnResolutions: recommendResolutions(columns, columnMappings, options),
    unmappedRequiredFields: unmetRequirements(definitions, mapped),
    scores: [...byColumn.values()].sort((a, b) => a.position - b.position).map((c) => ({ position: c.position, platformField: c.field, score: Math.round(c.score * 100) / 100 })),
  };
}

/** Keeps one side of each alternative: a complete debit+credit pair beats a signed amount, a complete side beats an incomplete one. */
function resolveAlternatives(definitions: ColumnDefinition[], byField: Map<string, Candidate>, byColumn: Map<number, Candidate>): void {
  const groups = alternativeGroups(definitions);
  for (const group of groups) {
    const alternatives = new Set(group.flatMap((f) => definitions.find((d) => d.platformFieldName === f)?.alternativeMappings ?? []));
    const other = groups.find((g) => g !== group && g.every((f) => alternatives.has(f)));
    if (!other) continue;
    const complete = (g: string[]) => g.every((f) => byField.has(f));
    const any = (g: string[]) => g.some((f) => byField.has(f));
    if (!any(group) || !any(other)) continue;
    let drop: string[];
    if (complete(group) && complete(other)) drop = group.length >= other.length ? other : group;
    else if (complete(group)) drop = other;
    else if (complete(other)) drop = group;
    else continue;
    for (const f of drop) {
      const c = byField.get(f);
      if (!c) continue;
      byField.delete(f);
      byColumn.delete(c.position);
    }
  }
}

/** The choice recommended for each ambiguous mapped column, using the other columns of the file as evidence. */
export function recommendResolutions(columns: ColumnSummary[], mappings: ColumnMapping[], options: RecommendOptions = {}): AmbiguousColumnResolution[] {
  const mappedPositions = new Set(mappings.filter((m) => m.platformField).map((m) => m.position));
  const decidedDate = columns.find((c) => c.type === "DATE" && c.detectedFormat && !c.detectedFormat.startsWith("yyyyMMdd") && !c.detectedFormat.includes("MMM"));
  const decidedNumber = columns.find((c) => c.type === "NUMBER" && c.detectedFormat && c.ambiguousFormats.length === 0 && Object.keys(c.sums).length > 0 && hasDecimals(c));
  const numberFormat = decidedNumber?.detectedFormat ?? (options.delimiter === ";" ? NUMBER_FORMAT_COMMA : NUMBER_FORMAT_DOT);
  const dateOrder = options.preferredDateOrder ?? (decidedDate ? dateOrderOf(decidedDate.detectedFormat!) : numberFormat === NUMBER_FORMAT_COMMA ? "DMY" : "MDY");
  const resolutions: AmbiguousColumnResolution[] = [];
  for (const column of columns) {
    if (!mappedPositions.has(column.position) || column.ambiguousFormats.length < 2) continue;
    let selected: string;
    if (column.type === "DATE") selected = column.ambiguousFormats.find((f) => dateOrderOf(f) === dateOrder) ?? column.ambiguousFormats[0];
    else selected = column.ambiguousFormats.includes(numberFormat) ? numberFormat : column.ambiguousFormats[0];
    resolutions.push({ position: column.position, ambiguousFormats: column.ambiguousFormats, selectedFormat: selected });
  }
  return resolutions;
}

function hasDecimals(column: ColumnSummary): boolean {
  // A column of plain integers (line numbers, account codes) says nothing about the decimal mark.
  return column.samples.some((s) => /[.,]\d{1,2}\)?-?$/.test(s.trim()));
}
