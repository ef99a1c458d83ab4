import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const accountMappingRoutes = [
  ...crudRoutes({ resource: "account-mappings", idParam: "accountMappingId", entity: "AccountMapping", tag: "Account mappings", ops: ["read", "update", "query"] }),
  route({
    method: "POST",
    path: "/account-mappings/verify",
    operation: "mutation",
    field: "verifyAccountMappings",
    args: { engagementId: { from: "bodyKey", name: "engagementId" } },
    summary: "Mark all account mappings of an engagement verified",
    tag: "Account mappings",
  }),
  route({
    method: "POST",
    path: "/account-mappings/delete-unused",
    operation: "mutation",
    field: "deleteUnusedAccountMappings",
    args: { engagementId: { from: "bodyKey", name: "engagementId" } },
    summary: "Delete the account mappings of an engagement that no analysis source uses",
    tag: "Account mappings",
  }),
  route({
    method: "POST",
    path: "/account-mappings/export",
    operation: "mutation",
    field: "exportAccountMappings",
    args: { engagementId: { from: "bodyKey", name: "engagementId" } },
    summary: "Export the account mappings of an engagement to Excel (async result ACCOUNT_MAPPING_EXPORT, target a file result)",
    tag: "Account mappings",
  }),
];
