import type { Family } from "./family.js";
import { commonFamily } from "./common/index.js";
import { eventsFamily } from "./events/index.js";
import { usersFamily } from "./users/index.js";
import { apiTokensFamily } from "./api-tokens/index.js";
import { organizationsFamily } from "./organizations/index.js";
import { engagementsFamily } from "./engagements/index.js";
import { asyncResultsFamily } from "./async-results/index.js";
import { fileResultsFamily } from "./file-results/index.js";
import { chunkedFilesFamily } from "./chunked-files/index.js";
import { fileManagerFamily } from "./file-manager/index.js";
import { jsonTablesFamily } from "./json-tables/index.js";
import { fileInfosFamily } from "./file-infos/index.js";
import { transformsFamily } from "./transforms/index.js";
import { gdpduFamily } from "./gdpdu/index.js";
import { analysisTypesFamily } from "./analysis-types/index.js";
import { librariesFamily } from "./libraries/index.js";
import { analysisTypeConfigurationsFamily } from "./analysis-type-configurations/index.js";
import { riskRangesFamily } from "./risk-ranges/index.js";
import { reportingPeriodsFamily } from "./reporting-periods/index.js";
import { analysesFamily } from "./analyses/index.js";
import { accountGroupingsFamily } from "./account-groupings/index.js";
import { engagementAccountGroupingsFamily } from "./engagement-account-groupings/index.js";
import { accountMappingsFamily } from "./account-mappings/index.js";
import { analysisSourcesFamily } from "./analysis-sources/index.js";
import { dataTablesFamily } from "./data-tables/index.js";
import { connectionsFamily } from "./connections/index.js";
import { dataCatalogFamily } from "./data-catalog/index.js";
import { analysisResultsFamily } from "./analysis-results/index.js";
import { webhooksFamily } from "./webhooks/index.js";

export type { Family } from "./family.js";

/**
 * Every family of the service, in the order their routes are matched and documented. Adding a
 * family: its folder with an index.ts (see family.ts), and one line here.
 */
export const families: readonly Family[] = [
  commonFamily,
  eventsFamily,
  organizationsFamily,
  engagementsFamily,
  usersFamily,
  apiTokensFamily,
  asyncResultsFamily,
  analysisTypesFamily,
  librariesFamily,
  analysisTypeConfigurationsFamily,
  riskRangesFamily,
  reportingPeriodsFamily,
  analysesFamily,
  fileResultsFamily,
  chunkedFilesFamily,
  fileManagerFamily,
  jsonTablesFamily,
  fileInfosFamily,
  transformsFamily,
  gdpduFamily,
  accountGroupingsFamily,
  engagementAccountGroupingsFamily,
  accountMappingsFamily,
  analysisSourcesFamily,
  dataTablesFamily,
  connectionsFamily,
  dataCatalogFamily,
  analysisResultsFamily,
  webhooksFamily,
];
