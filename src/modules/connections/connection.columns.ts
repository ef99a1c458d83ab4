import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, ID, TEXT } from "../../query-language/index.js";

export const CONNECTION_TYPES = ["WAREHOUSE"] as const;
export const AUTH_TYPES = ["PAT", "OAUTH_M2M"] as const;

export const connectionColumns = defineColumns("connections", { ...AUDIT_COLUMNS, name: TEXT, type: enumOf(CONNECTION_TYPES) });

export const warehouseAuthorizationColumns = defineColumns("warehouse authorizations", { ...AUDIT_COLUMNS, connectionId: ID, authType: enumOf(AUTH_TYPES) });

export const connectionTestResultColumns = defineColumns("connection test results", { ...AUDIT_COLUMNS, connectionId: ID, success: FLAG });

export const connectionTablesResultColumns = defineColumns("connection tables results", { ...AUDIT_COLUMNS, connectionId: ID, success: FLAG });

export const connectionTableColumns = defineColumns("connection tables", { ...AUDIT_COLUMNS, connectionId: ID, tablesResultId: ID, tableId: TEXT, name: TEXT });
