import { builder } from "../../graphql/builder.js";
import { ALL_PERMISSIONS } from "../../auth/permissions.js";
import { listOf, namedShape, shaped } from "../common/json-shape.js";
import type { InputOf } from "../common/crud-fields.js";

// GraphQL enum values cannot contain dots: permissions are strings there, an enum in OpenAPI.
export const PERMISSIONS = shaped(listOf(namedShape("Permission", { type: "string", enum: [...ALL_PERMISSIONS], description: "Token permission (wire reference 7)" })));
export const PERMISSIONS_DESCRIPTION = "Permissions (wire reference 7: api.<area>.read|write|delete and a few more; the OpenAPI document lists them)";

export const CreateApiTokenInput = builder.inputType("CreateApiTokenInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    expiry: t.field({ type: "DateTime", description: "At most 2 years ahead; defaults to 2 years" }),
    permissions: t.stringList({ required: true, ...PERMISSIONS, description: `${PERMISSIONS_DESCRIPTION}; an unknown name is refused (400 naming it)` }),
    allowedAddresses: t.stringList({ description: "IPv4/IPv6 addresses or CIDR ranges; empty allows any" }),
  }),
});
export type CreateApiTokenInput = InputOf<typeof CreateApiTokenInput>;

export const UpdateApiTokenInput = builder.inputType("UpdateApiTokenInput", {
  fields: (t) => ({
    name: t.string(),
    version: t.int({ required: true }),
  }),
});
export type UpdateApiTokenInput = InputOf<typeof UpdateApiTokenInput>;
