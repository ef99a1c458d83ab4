import { newId } from "../core/ids.js";

export interface Actor {
  userId: string;
  userName: string;
}

/** Common fields of a new entity (spec 2.2): id, version 0, dates and creator. */
export function createAudit(actor: Actor) {
  const now = new Date();
  return {
    id: newId(),
    version: 0,
    creationDate: now,
    lastModifiedDate: now,
    createdUserId: actor.userId,
    createdUserName: actor.userName,
    lastModifiedUserId: actor.userId,
    lastModifiedUserName: actor.userName,
  };
}

/** Common fields every save of an existing entity updates. */
export function touchAudit(actor: Actor) {
  return {
    lastModifiedDate: new Date(),
    lastModifiedUserId: actor.userId,
    lastModifiedUserName: actor.userName,
  };
}
