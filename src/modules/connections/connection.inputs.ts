import { builder } from "../../graphql/builder.js";
import type { InputFields, InputOf } from "../common/crud-fields.js";
import { AUTH_TYPES, CONNECTION_TYPES } from "./connection.columns.js";

export const ConnectionType = builder.enumType("ConnectionType", { values: CONNECTION_TYPES });
export const WarehouseAuthType = builder.enumType("WarehouseAuthType", { values: AUTH_TYPES });

export const CreateConnectionInput = builder.inputType("CreateConnectionInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    type: t.field({ type: ConnectionType, description: "Default WAREHOUSE (the only type)" }),
    description: t.string(),
  }),
});
export type CreateConnectionInput = InputOf<typeof CreateConnectionInput>;

const authFields = <Required extends boolean>(t: InputFields, required: Required) => ({
  authType: t.field({ type: WarehouseAuthType, required }),
  host: t.string({ required, description: "Workspace host name, e.g. adb-123.4.azuredatabricks.net" }),
  httpPath: t.string({ required, description: "The SQL warehouse's HTTP path, e.g. /sql/1.0/warehouses/abc123" }),
  port: t.int({ description: "Default 443" }),
  accessToken: t.string({ description: "PAT only; write-only" }),
  clientId: t.string({ description: "OAUTH_M2M only" }),
  clientSecret: t.string({ description: "OAUTH_M2M only; write-only" }),
});

export const CreateWarehouseAuthorizationInput = builder.inputType("CreateWarehouseAuthorizationInput", {
  fields: (t) => ({ connectionId: t.id({ required: true }), ...authFields(t, true) }),
});
export type CreateWarehouseAuthorizationInput = InputOf<typeof CreateWarehouseAuthorizationInput>;

export const UpdateWarehouseAuthorizationInput = builder.inputType("UpdateWarehouseAuthorizationInput", {
  fields: (t) => ({
    id: t.id({ required: true }),
    version: t.int({ required: true }),
    connectionId: t.id({ description: "Cannot change" }),
    ...authFields(t, false),
  }),
});
export type UpdateWarehouseAuthorizationInput = InputOf<typeof UpdateWarehouseAuthorizationInput>;
