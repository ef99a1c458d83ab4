import { ForbiddenError } from "../../core/errors.js";

/** The rows of spec 5's user-management matrix: what kind of user the TARGET of an action is. */
export type UserKind = "APP_ADMIN" | "USER_ADMIN" | "ORGANIZATION_ADMIN" | "USER" | "CLIENT" | "PLATFORM_SUPPORT" | "API_TOKEN";

export type UserAction = "read" | "query" | "create" | "updateEnabled" | "updateRole" | "roleTarget" | "delete" | "activationEmail";

type Row = Record<UserAction, boolean>;

const yes = (overrides: Partial<Row> = {}): Row => ({
  read: true,
  query: true,
  create: true,
  updateEnabled: true,
  updateRole: true,
  roleTarget: true,
  delete: true,
  activationEmail: true,
  ...overrides,
});
const readOnly: Row = yes({ create: false, updateEnabled: false, updateRole: false, roleTarget: false, delete: false, activationEmail: false });

/**
 * Spec 5, cell by cell. "roleTarget" is the column "Can update role to": whether another user's
 * role may be changed TO this kind.
 */
export const USER_MANAGEMENT_MATRIX: Record<UserKind, Row> = {
  APP_ADMIN: yes({ updateEnabled: false, updateRole: false, delete: false }),
  USER_ADMIN: yes(),
  ORGANIZATION_ADMIN: yes(),
  USER: yes(),
  CLIENT: yes({ create: false, updateRole: false, roleTarget: false }),
  PLATFORM_SUPPORT: readOnly,
  API_TOKEN: readOnly,
};

const KIND_BY_ROLE: Record<string, UserKind> = {
  ROLE_ADMIN: "APP_ADMIN",
  ROLE_USER_ADMIN: "USER_ADMIN",
  ROLE_ORGANIZATION_ADMIN: "ORGANIZATION_ADMIN",
  ROLE_USER: "USER",
  ROLE_CLIENT: "CLIENT",
  ROLE_PLATFORM_SUPPORT: "PLATFORM_SUPPORT",
};

const LABEL: Record<UserKind, string> = {
  APP_ADMIN: "App Admin users",
  USER_ADMIN: "User Admin users",
  ORGANIZATION_ADMIN: "Organization Manager users",
  USER: "User users",
  CLIENT: "Client users",
  PLATFORM_SUPPORT: "Platform Support users",
  API_TOKEN: "API Token users",
};

const FORBIDDEN_REASON: Record<UserAction, (label: string) => string> = {
  read: (l) => `${l} cannot be read`,
  query: (l) => `${l} cannot be queried`,
  create: (l) => `${l} cannot be created through the API`,
  updateEnabled: (l) => `${l} cannot be enabled or disabled`,
  updateRole: (l) => `${l} cannot have their role changed`,
  roleTarget: (l) => `A user's role cannot be changed to make them one of the ${l}`,
  delete: (l) => `${l} cannot be deleted`,
  activationEmail: (l) => `${l} cannot be sent an activation email`,
};

const HINT: Partial<Record<UserKind, string>> = {
  API_TOKEN: "; API Token users are managed with their token (delete the token to remove the user)",
  PLATFORM_SUPPORT: "; Platform Support users are managed by the platform",
};

export function userKind(user: { role: string; serviceAccount?: boolean | null }): UserKind {
  if (user.serviceAccount) return "API_TOKEN";
  return KIND_BY_ROLE[user.role] ?? "USER";
}

export function isAllowed(kind: UserKind, action: UserAction): boolean {
  return USER_MANAGEMENT_MATRIX[kind][action];
}

/** 403 INSUFFICIENT_PERMISSION naming the rule when the matrix forbids `action` on `kind`. */
export function assertAllowed(kind: UserKind, action: UserAction, target?: { id: string; field?: string; value?: string }): void {
  if (isAllowed(kind, action)) return;
  throw new ForbiddenError(FORBIDDEN_REASON[action](LABEL[kind]) + (HINT[kind] ?? ""), {
    ...(target?.field ? { identifier: target.field } : {}),
    ...(target?.value ? { values: [target.value] } : {}),
    ...(target?.id ? { entityId: target.id, entityType: "User" } : {}),
  });
}

/**
 * Spec 5: Platform Support and API Token users "cannot be created, updated, deleted or sent
 * activation email (managed automatically)": any PUT on them is refused, even one changing nothing.
 */
export function assertManagedThroughApi(kind: UserKind, id: string): void {
  if (kind !== "PLATFORM_SUPPORT" && kind !== "API_TOKEN") return;
  throw new ForbiddenError(`${LABEL[kind]} cannot be updated${HINT[kind] ?? ""}`, { entityId: id, entityType: "User" });
}
