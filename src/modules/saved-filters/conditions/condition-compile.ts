import { ValidationError, type Problem } from "../../../core/errors.js";
import { checkFilter, type ColumnDef, type ColumnSet } from "../../../query-language/index.js";
import type { Condition } from "./condition-check.js";

/**
 * The one compiler from saved filter and population conditions (spec 2.9) to the query language
 * (spec 4.2): the validate endpoint, the data endpoint given a saved filter and population
 * membership all run what it emits through the shared query-language module, so a condition means
 * exactly what the equivalent hand-written query means. Conditions are compiled against the
 * columns of one data table; a condition that does not fit them is an error naming its path.
 */
export type Query = Record<string, unknown>;

export interface CompileResult {
  query: Query;
  errors: Problem[];
  warnings: Problem[];
}

export interface CompileOptions {
  /** Problem type of errors (populations: POPULATION_CONVERSION_FAILED). */
  problemType?: Problem["problemType"];
  path?: string;
}

const NUMERIC = new Set(["INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "DECIMAL"]);
const INVERSE: Record<string, string> = {
  $eq: "$ne",
  $ne: "$eq",
  $in: "$nin",
  $nin: "$in",
  $gt: "$lte",
  $lte: "$gt",
  $gte: "$lt",
  $lt: "$gte",
  $contains: "$ncontains",
  $ncontains: "$contains",
  $iprefix: "$niprefix",
  $niprefix: "$iprefix",
  $population: "$not_population",
  $not_population: "$population",
  $keyword_prefix: "$keyword_prefix_not",
  $keyword_prefix_not: "$keyword_prefix",
};

class CannotNegate extends Error {}

/** NOT of a query-language object, by De Morgan and each operator's inverse. */
export function negate(query: Query): Query {
  const terms = Object.entries(query).map(([key, value]): Query => {
    if (key === "$and" || key === "$or") return { [key === "$and" ? "$or" : "$and"]: (value as Query[]).map(negate) };
    if (key.startsWith("$")) return { [INVERSE[key]]: value };
    if (typeof value !== "object" || value === null) return { [key]: { $ne: value } };
    const ops = Object.entries(value as Record<string, unknown>).map(([op, operand]): Query => {
      if (op === "$flags") {
        const flags = Object.entries(operand as Record<string, boolean>);
        const each = flags.map(([flag, on]) => ({ [key]: { $flags: { [flag]: !on } } }));
        return each.length === 1 ? each[0] : { $or: each };
      }
      if (!INVERSE[op]) throw new CannotNegate(`${op} cannot be negated`);
      return { [key]: { [INVERSE[op]]: operand } };
    });
    return ops.length === 1 ? ops[0] : { $or: ops };
  });
  return terms.length === 1 ? terms[0] : { $or: terms };
}

const any = (terms: Query[]): Query => (terms.length === 1 ? terms[0] : { $or: terms });
const all = (terms: Query[]): Query => (terms.length === 1 ? terms[0] : { $and: terms });

/** MORE_THAN / LESS_THAN / SPECIFIC_VALUE / BETWEEN (and the DATE names) as operators on one column. */
function valueTerm(field: string, kind: string, c: Condition): Query {
  switch (kind) {
    case "MORE_THAN":
    case "AFTER":
      return { [field]: { $gt: c.value } };
    case "LESS_THAN":
    case "BEFORE":
      return { [field]: { $lt: c.value } };
    case "SPECIFIC_VALUE":
      return { [field]: { $eq: c.value } };
    default:
      return { [field]: { $gte: c.rangeStart, $lte: c.rangeEnd } };
  }
}

/** A DATE condition on a DATE_TIME column: whole UTC days. */
function dateTimeTerm(field: string, kind: string, c: Condition): Query {
  const start = (d: string) => `${d}T00:00:00Z`;
  const next = (d: string) => new Date(Date.parse(start(d)) + 86_400_000).toISOString();
  switch (kind) {
    case "AFTER":
      return { [field]: { $gte: next(c.value) } };
    case "BEFORE":
      return { [field]: { $lt: start(c.value) } };
    case "SPECIFIC_VALUE":
      return { [field]: { $gte: start(c.value), $lt: next(c.value) } };
    default:
      return { [field]: { $gte: start(c.rangeStart), $lt: next(c.rangeEnd) } };
  }
}

class Compiler {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];
  constructor(
    private readonly columns: ColumnSet,
    private readonly problemType: Problem["problemType"],
  ) {}

  error(path: string, reason: string, values?: unknown[], suggestedValues?: string[]) {
    this.errors.push({ problemType: this.problemType, severity: "ERROR", identifier: path, reason, ...(values ? { values: values.map(String) } : {}), ...(suggestedValues ? { suggestedValues } : {}) });
    return null;
  }

  warn(path: string, reason: string) {
    this.warnings.push({ problemType: this.problemType, severity: "WARNING", identifier: path, reason });
  }

  column(name: string, path: string, accept: (c: ColumnDef) => boolean, wanted: string): ColumnDef | null {
    const column = this.columns.byField.get(name);
    if (!column) return this.error(`${path}.field`, `${name} is not a column of ${this.columns.subject}`, [name]);
    if (!accept(column)) return this.error(`${path}.field`, `${name} is a ${column.type} column; this condition needs ${wanted}`, [name]);
    return column;
  }

  compile(c: Condition, path: string): Query | null {
    const query = this.positive(c, path);
    if (!query || !c.negated) return query;
    try {
      return negate(query);
    } catch (error) {
      if (error instanceof CannotNegate) return this.error(`${path}.negated`, `This condition cannot be negated on ${this.columns.subject}: ${error.message}`);
      throw error;
    }
  }

  positive(c: Condition, path: string): Query | null {
    const field = c.field as string;
    switch (c.type) {
      case "GROUP": {
        const children = (c.conditions as Condition[]).map((child, i) => this.compile(child, `${path}.conditions[${i}]`));
        if (children.some((q) => q === null)) return null;
        return { [c.operator === "OR" ? "$or" : "$and"]: children };
      }
      case "STRING":
        if (!this.column(field, path, (col) => col.type === "STRING" && Boolean(col.equalitySearch), "a STRING column with equality search (general ledger entries)")) return null;
        return { [field]: { $in: c.values } };
      case "STRING_ARRAY": {
        const column = this.column(field, path, (col) => (col.type === "STRING" && Boolean(col.caseInsensitivePrefixSearch)) || col.type === "KEYWORD_SEARCH", "a STRING column with caseInsensitivePrefixSearch, or a KEYWORD_SEARCH column");
        if (!column) return null;
        const values = c.values as string[];
        return column.type === "KEYWORD_SEARCH" ? any(values.map((v) => ({ $keyword_prefix: v }))) : any(values.map((v) => ({ [field]: { $iprefix: v } })));
      }
      case "CONTROL_POINT": {
        const column = this.column(field, path, (col) => col.type === "BOOLEAN_FLAGS" && Boolean(col.flagColumns), "the BOOLEAN_FLAGS column cp_failed");
        if (!column) return null;
        const flags = column.flagColumns!;
        const terms: Query[] = [];
        (c.controlPoints as Array<{ id: string }>).forEach((point, i) => {
          if (!(point.id in flags)) {
            this.error(`${path}.controlPoints[${i}].id`, `${point.id} is not a control point of ${this.columns.subject}`, [point.id], Object.keys(flags));
            return;
          }
          if (c.riskLevel === "HIGH_RISK") terms.push({ cp_failed: { $flags: { [point.id]: true } } });
          else if (c.riskLevel === "LOW_RISK") terms.push({ cp_failed: { $flags: { [point.id]: false } } });
          else {
            const score = `cp_score_${point.id}`;
            if (!this.columns.byField.has(score)) {
              this.error(`${path}.riskLevel`, `${this.columns.subject} has no score column ${score} to tell medium risk`, [c.riskLevel]);
              return;
            }
            terms.push({ $and: [{ cp_failed: { $flags: { [point.id]: false } } }, { [score]: { $gt: 0 } }] });
          }
        });
        return terms.length === (c.controlPoints as unknown[]).length ? any(terms) : null;
      }
      case "ACCOUNT_NODE_ARRAY": {
        const perEntry = this.columns.byField.has("account");
        const selections = (c.accountSelections as Array<{ code: string; useAccountId?: boolean }>).map((s, i): Query | null => {
          if (s.useAccountId) {
            if (perEntry) return { account: s.code };
            if (this.columns.byField.has("accounts")) return { accounts: { $contains: s.code } };
            return this.error(`${path}.accountSelections[${i}].useAccountId`, `${this.columns.subject} has no account column`);
          }
          if (!this.column("account_hierarchy_codes", path, (col) => col.type === "ARRAY_STRINGS", "account_hierarchy_codes")) return null;
          return { account_hierarchy_codes: { $contains: s.code } };
        });
        if (selections.some((q) => q === null)) return null;
        const match = any(selections as Query[]);
        if (field === "account_hierarchy_codes") return match;
        const side = field === "increasingCredits" ? "credit" : "debit";
        if (!this.column(side, path, (col) => col.type === "MONEY_100", "a MONEY_100 column")) return null;
        return all([match, { [side]: { $gt: 0 } }]);
      }
      case "TYPEAHEAD_ENTRY": {
        const column = this.column(field, path, (col) => col.type === "STRING" || col.type === "ARRAY_STRINGS", "a STRING or ARRAY_STRINGS column");
        if (!column) return null;
        const ids = (c.values as Array<{ lookupId: string }>).map((v) => v.lookupId);
        if (column.type === "ARRAY_STRINGS") return any(ids.map((id) => ({ [field]: { $contains: id } })));
        if (column.equalitySearch) return { [field]: { $in: ids } };
        return any(ids.map((id) => ({ [field]: { $isubstr: id } })));
      }
      case "POPULATIONS":
        return any((c.populationIds as string[]).map((id) => ({ $population: id })));
      case "RISK_SCORE": {
        const score = (c.riskScoreId as string | undefined) ?? "risk";
        const level = score === "risk" ? "risk_level" : `${score}_level`;
        if (c.riskScoreType === "HML") {
          if (!this.column(level, path, (col) => col.type === "STRING", "a risk level column")) return null;
          return { [level]: { $in: c.values } };
        }
        if (!this.column(score, path, (col) => col.type === "PERCENTAGE_FIXED_POINT", "a PERCENTAGE_FIXED_POINT score column")) return null;
        if (c.riskScorePercentType === "UNSCORED") return this.columns.byField.has(level) ? { [level]: "UNSCORED" } : { [score]: null };
        if (c.riskScorePercentType === "MORE_THAN") return { [score]: { $gt: c.value } };
        if (c.riskScorePercentType === "LESS_THAN") return { [score]: { $lt: c.value } };
        return { [score]: { $gte: c.rangeStart, $lte: c.rangeEnd } };
      }
      case "MONETARY_FLOW": {
        if (c.monetaryFlowType !== "SPECIFIC_FLOW") {
          if (!this.column("flow_type", path, (col) => col.type === "STRING", "a flow type column (transactions or monetary flows)")) return null;
          return { flow_type: c.monetaryFlowType === "COMPLEX_FLOW" ? "COMPLEX" : "SIMPLE" };
        }
        const flows = this.columns.byField.has("debit_account");
        const amount = flows ? "amount" : "monetary_value";
        if (!flows && !this.columns.byField.has("accounts")) return this.error(`${path}.field`, `${this.columns.subject} has neither monetary flow accounts nor transaction accounts`);
        if (!this.columns.byField.has(amount)) return this.error(`${path}.field`, `${this.columns.subject} has no ${amount} column`);
        const side = (selection: { code: string }, column: string): Query => {
          if (selection.code === "complex") return { flow_type: "COMPLEX" };
          return flows ? { [column]: selection.code } : { accounts: { $contains: selection.code } };
        };
        return all([side(c.debitAccount, "debit_account"), side(c.creditAccount, "credit_account"), valueTerm(amount, c.specificMonetaryFlowType, c)]);
      }
      case "MONEY":
        if (!this.column(field, path, (col) => col.type === "MONEY_100", "a MONEY_100 column")) return null;
        return valueTerm(field, c.monetaryValueType, c);
      case "MATERIALITY":
        if (!this.column(field, path, (col) => NUMERIC.has(col.type), "the materiality column (general ledger analyses with a materiality)")) return null;
        if (c.materialityOption === "ABOVE") return { materiality: { $gte: 100 } };
        if (c.materialityOption === "BELOW") return { materiality: { $lt: 100 } };
        return { materiality: { $gte: c.value } };
      case "NUMERICAL":
        if (!this.column(field, path, (col) => NUMERIC.has(col.type), "an INT32, INT64, FLOAT32 or FLOAT64 column")) return null;
        return valueTerm(field, c.numericalValueType, c);
      case "DATE": {
        const column = this.column(field, path, (col) => col.type === "DATE" || col.type === "DATE_TIME", "a DATE or DATE_TIME column");
        if (!column) return null;
        return column.type === "DATE" ? valueTerm(field, c.dateType, c) : dateTimeTerm(field, c.dateType, c);
      }
    }
  }
}

/**
 * Compiles a (shape-checked) condition against a data table's columns, then runs the query through
 * the query-language validator so column flags and values are checked exactly as for /query.
 */
export function compileCondition(condition: Condition, columns: ColumnSet, options: CompileOptions = {}): CompileResult {
  const compiler = new Compiler(columns, options.problemType ?? "FILTER_CONVERSION_FAILED");
  const query = compiler.compile(condition, options.path ?? "condition") ?? {};
  if (compiler.errors.length === 0) {
    try {
      checkFilter(query, columns, { populationsSupported: true });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const p of error.problems) compiler.errors.push({ ...p, problemType: options.problemType ?? p.problemType, reason: `${p.reason} (compiled query ${JSON.stringify(query)})` });
    }
  }
  return { query: compiler.errors.length === 0 ? query : {}, errors: compiler.errors, warnings: compiler.warnings };
}
