import { AUDIT_COLUMNS, defineColumns, ENUM, TEXT } from "../../query-language/index.js";

/** Spec 4.4: reporting period configurations filter on id, type, name and originalName. */
export const reportingPeriodColumns = defineColumns("reporting period configurations", {
  ...AUDIT_COLUMNS,
  type: ENUM,
  name: TEXT,
  originalName: TEXT,
});
