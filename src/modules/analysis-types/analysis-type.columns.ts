import { AUDIT_COLUMNS, defineColumns, FLAG, TEXT } from "../../query-language/index.js";

export const analysisTypeColumns = defineColumns("analysis types", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  archived: FLAG,
  interimSupported: FLAG,
  periodicSupported: FLAG,
  fundSupported: FLAG,
  accountMappingRequired: FLAG,
});

export const analysisSourceTypeColumns = defineColumns("analysis source types", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  archived: FLAG,
  features: { type: "ARRAY_STRINGS", containsSearch: true },
});
