import { builder } from "../../graphql/builder.js";

/** Shape every stored entity shares (spec 2.2), as the Prisma models store it. */
export interface AuditShape {
  id: string;
  version: number;
  creationDate: Date;
  lastModifiedDate: Date;
  createdUserId: string | null;
  createdUserName: string | null;
  lastModifiedUserId: string | null;
  lastModifiedUserName: string | null;
}

export const UserInfo = builder.objectRef<{ userId: string | null; userName: string | null }>("UserInfo").implement({
  fields: (t) => ({
    userId: t.exposeString("userId", { nullable: true }),
    userName: t.exposeString("userName", { nullable: true }),
  }),
});

/** The common fields (spec 2.2); every entity type implements it. */
export const Entity = builder.interfaceRef<AuditShape>("Entity").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    version: t.exposeInt("version"),
    creationDate: t.expose("creationDate", { type: "DateTime" }),
    lastModifiedDate: t.expose("lastModifiedDate", { type: "DateTime" }),
    createdUserInfo: t.field({ type: UserInfo, resolve: (e) => ({ userId: e.createdUserId, userName: e.createdUserName }) }),
    lastModifiedUserInfo: t.field({ type: UserInfo, resolve: (e) => ({ userId: e.lastModifiedUserId, userName: e.lastModifiedUserName }) }),
  }),
});
