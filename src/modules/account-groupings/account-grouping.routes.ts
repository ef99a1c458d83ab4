import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const accountGroupingRoutes = [
  ...crudRoutes({ resource: "account-groupings", idParam: "accountGroupingId", entity: "AccountGrouping", tag: "Account groupings", ops: ["read", "update", "delete", "query"] }),
  ...crudRoutes({ resource: "account-groups", idParam: "accountGroupId", entity: "AccountGroup", tag: "Account groupings", ops: ["read", "update", "query"] }),
  route({
    method: "POST",
    path: "/account-groupings/import-from-chunked-file",
    operation: "mutation",
    field: "importAccountGrouping",
    args: { input: { from: "body" } },
    summary: "Create an account grouping from a template workbook or group trial balance uploaded as a chunked file",
    tag: "Account groupings",
  }),
  route({
    method: "POST",
    path: "/account-groupings/{accountGroupingId}/append-from-chunked-file",
    operation: "mutation",
    field: "appendAccountGroupingFromChunkedFile",
    args: { id: { from: "path", name: "accountGroupingId" }, chunkedFileId: { from: "bodyKey", name: "chunkedFileId" } },
    summary: "Add and update groups from a template workbook (e.g. an edited export) uploaded as a chunked file",
    tag: "Account groupings",
  }),
  route({
    method: "POST",
    path: "/account-groupings/{accountGroupingId}/export",
    operation: "mutation",
    field: "exportAccountGrouping",
    args: { id: { from: "path", name: "accountGroupingId" } },
    summary: "Export the grouping with all groups to Excel (async result ACCOUNT_GROUPING_EXPORT, target a file result)",
    tag: "Account groupings",
  }),
  route({
    method: "POST",
    path: "/account-groupings/export",
    operation: "mutation",
    field: "exportAccountGrouping",
    args: { id: { from: "bodyKey", name: "accountGroupingId" } },
    summary: "Export the grouping named by accountGroupingId to Excel (async result ACCOUNT_GROUPING_EXPORT)",
    tag: "Account groupings",
  }),
];
