import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const userRoutes = [
  route({ method: "GET", path: "/users/current", operation: "query", field: "currentUser", summary: "The calling token's API Token User", tag: "Users" }),
  ...crudRoutes({ resource: "users", idParam: "userId", entity: "User", tag: "Users" }),
  route({
    method: "POST",
    path: "/users/{userId}/resend-activation-link",
    operation: "mutation",
    field: "resendUserActivationLink",
    args: { id: { from: "path", name: "userId" } },
    summary: "Send a new activation link (valid 7 days) to a user who has not activated yet",
    tag: "Users",
  }),
];
