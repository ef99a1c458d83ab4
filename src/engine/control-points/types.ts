/**
 * What the engine knows about a control point, independent of how it is computed: the facts of
 * ../shared/spec/control-points.md where they were found, our documented choices where they were
 * not (docs/control-points.md explains each).
 */

/** Rules-based: 0 or 10000. Statistical and ML: graded 0..10000. Expert: low/medium/high (EXPERT_SCORES). */
export type ControlPointKind = "RULES_BASED" | "STATISTICAL" | "MACHINE_LEARNING" | "EXPERT_RULES";

/** Where the control point looks: one entry, one transaction, or one monetary flow of a transaction. */
export type ControlPointLevel = "ENTRY" | "TRANSACTION" | "FLOW";

/** The families of analysis types that share a control point list. */
export type ControlPointFamily = "GL" | "GL_NFP" | "GL_NFP_FUND" | "AP" | "AR";

/** A setting's type, for validation of configuration edits. */
export type SettingType = "INTEGER" | "NUMBER" | "MONEY" | "STRING_LIST" | "INTEGER_LIST" | "BOOLEAN" | "EXPERT_RULES" | "STRING";

export interface SettingDefinition {
  type: SettingType;
  /** null: decided from the data at run time (documented per setting). */
  default: unknown;
  description: string;
  min?: number;
  max?: number;
}

/** Entry fields a control point reads; it is not run (and left out of the scores) when one is not mapped. */
export type RequiredField =
  | "entered_date"
  | "memo"
  | "type"
  | "user_id"
  | "fund_id"
  | "invoice_id"
  | "invoice_date"
  | "party_id"
  | "party_list"
  | "party_opening_balances";

export interface ControlPointDefinition {
  /** Symbolic name: the stem of the result columns `cp_failed_<name>` and `cp_score_<name>`, and the key of weights. */
  name: string;
  displayName: string;
  kind: ControlPointKind;
  level: ControlPointLevel;
  defaultWeight: number;
  /** Whether the symbolic name is the platform's (control-points.md) or ours (not found there). */
  platformName: boolean;
  requires: RequiredField[];
  settings: Record<string, SettingDefinition>;
  /** One sentence: what fires it. */
  summary: string;
}

/** Scores of expert ratings (PERCENTAGE_FIXED_POINT). */
export const EXPERT_SCORES = { LOW: 3333, MEDIUM: 6667, HIGH: 10000 } as const;
export type ExpertRating = keyof typeof EXPERT_SCORES;

/** A flow rule: debit side and credit side each an account group code, MAC code (prefix) or account id; `*` any. */
export interface ExpertRule {
  debit: string;
  credit: string;
  rating: ExpertRating;
}

/** Custom control points (spec 2.9, control-points.md): GL only, `custom_` ids, weight 0 until an admin sets one. */
export interface CustomControlPoint {
  id: string;
  name: string;
  description?: string | null;
  /** Only PUBLISHED ones are run and can carry weight. */
  status: "DRAFT" | "PUBLISHED";
  /** The expected monetary flows with their ratings. */
  rules: ExpertRule[];
  /** Rating of a flow no rule names (null: such flows are not scored). */
  unexpectedFlowRating?: ExpertRating | null;
}

export const MAX_CUSTOM_CONTROL_POINTS = 20;
export const CUSTOM_PREFIX = "custom_";
