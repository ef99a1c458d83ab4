import type { RouteDef } from "./route-helpers.js";
import { apiTokenRoutes } from "../src/modules/api-tokens/api-token.routes.js";
import { engagementRoutes } from "../src/modules/engagements/engagement.routes.js";
import { organizationRoutes } from "../src/modules/organizations/organization.routes.js";
import { userRoutes } from "../src/modules/users/user.routes.js";
import { analysisTypeRoutes } from "../src/modules/analysis-types/analysis-type.routes.js";
import { libraryRoutes } from "../src/modules/libraries/library.routes.js";
import { configurationRoutes } from "../src/modules/analysis-type-configurations/configuration.routes.js";
import { riskRangeRoutes } from "../src/modules/risk-ranges/risk-range.routes.js";
import { reportingPeriodRoutes } from "../src/modules/reporting-periods/reporting-period.routes.js";
import { analysisRoutes } from "../src/modules/analyses/analysis.routes.js";
import { asyncResultRoutes } from "../src/modules/async-results/async-result.routes.js";
import { fileResultRoutes } from "../src/modules/file-results/file-result.routes.js";
import { chunkedFileRoutes } from "../src/modules/chunked-files/chunked-file.routes.js";
import { fileManagerRoutes } from "../src/modules/file-manager/file-manager.routes.js";
import { jsonTableRoutes } from "../src/modules/json-tables/json-table.routes.js";
import { fileInfoRoutes } from "../src/modules/file-infos/file-info.routes.js";
import { transformRoutes } from "../src/modules/transforms/transforms.routes.js";
import { gdpduRoutes } from "../src/modules/gdpdu/gdpdu.routes.js";
import { accountGroupingRoutes } from "../src/modules/account-groupings/account-grouping.routes.js";
import { engagementAccountGroupingRoutes } from "../src/modules/engagement-account-groupings/engagement-account-grouping.routes.js";
import { accountMappingRoutes } from "../src/modules/account-mappings/account-mapping.routes.js";
import { analysisSourceRoutes } from "../src/modules/analysis-sources/analysis-source.routes.js";
import { dataTableRoutes } from "../src/modules/data-tables/data-table.routes.js";
import { analysisResultRoutes } from "../src/modules/analysis-results/analysis-result.routes.js";

/** Every /api/v1 endpoint. Modules own their entries; this list only collects them. */
export const routeTable: RouteDef[] = [
  ...organizationRoutes,
  ...engagementRoutes,
  ...userRoutes,
  ...apiTokenRoutes,
  ...asyncResultRoutes,
  ...analysisTypeRoutes,
  ...libraryRoutes,
  ...configurationRoutes,
  ...riskRangeRoutes,
  ...reportingPeriodRoutes,
  ...analysisRoutes,
  ...fileResultRoutes,
  ...chunkedFileRoutes,
  ...fileManagerRoutes,
  ...jsonTableRoutes,
  ...fileInfoRoutes,
  ...transformRoutes,
  ...gdpduRoutes,
  ...accountGroupingRoutes,
  ...engagementAccountGroupingRoutes,
  ...accountMappingRoutes,
  ...analysisSourceRoutes,
  ...dataTableRoutes,
  ...analysisResultRoutes,
];
