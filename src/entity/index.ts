export { createAudit, touchAudit, type Actor } from "./audit.js";
export { saveVersioned } from "./versioned.js";
export { assertContent } from "./content-rules.js";
export { pageRequest, pageFromIds, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest } from "./paging.js";
export { findPageIds, type EntityQuery } from "./entity-query.js";
export { findEntity, queryEntities, type PageArgs } from "./query-entities.js";
export { rowReader, RowReader } from "./row-reader.js";
export { relatedList, type RelatedListArgs } from "./related-list.js";
export { relatedById, relatedOne } from "./related-one.js";
