/**
 * The types of this family's Json columns. `prisma/schema/analysis-sources.prisma` names each one
 * (`/// [AnalysisSource...]`) and prisma-json-types-generator writes them into the generated client,
 * so reads, writes and the Pothos shapes of these columns are typed: a shape change is a compile error.
 */
import type {
  AmbiguousColumnResolution,
  ColumnData,
  ColumnMapping,
  DiscoveredAccount,
  EffectiveDateSummary,
  EntryColumn,
  EntryPreview,
  FormatDetection,
  ProposedAmbiguousColumnResolution,
  ProposedColumnMapping,
  TabularFileInfo,
  TransactionIdSelection,
  TransactionIdType as TransactionIdTypeValue,
  VirtualColumnDefinition,
  Rating,
  WorkflowState as WorkflowStateValue,
} from "../../ingestion/index.js";
import type { SourceMessage } from "./analysis-source.messages.js";
import type { StoredStage } from "./analysis-source.steps.js";
import type { StoredIndicators } from "./transaction-id-preview.wire.js";
import type { AuditedVirtualColumn } from "./analysis-source.virtual-columns.js";

/** What PARSE keeps of its result (the entries table's name is derived from the source id). */
export interface StoredParse {
  rowCount: number;
  columns: EntryColumn[];
  unparseable: Record<string, number>;
}

declare global {
  namespace PrismaJson {
    // String columns written only from their wire enum's values (the Pothos enums list the same ones).
    type WorkflowState = WorkflowStateValue;
    type TransactionIdType = TransactionIdTypeValue;
    type TransactionIdRating = Rating;
    type SourceMessages = SourceMessage[];
    type AnalysisSourceFileInfo = TabularFileInfo;
    /** File version (ORIGINAL, DEGROUPED) to file info id. */
    type AnalysisSourceFileInfoVersions = Record<string, string>;
    type AnalysisSourceColumnMappings = ColumnMapping[];
    /** Applied by APPLY_COLUMN_MAPPINGS, with their audit. */
    type AnalysisSourceVirtualColumns = AuditedVirtualColumn[];
    type AnalysisSourceAmbiguousColumnResolutions = AmbiguousColumnResolution[];
    type AnalysisSourceTransactionIdSelection = TransactionIdSelection;
    type AnalysisSourceProposedColumnMappings = ProposedColumnMapping[];
    type AnalysisSourceProposedVirtualColumns = VirtualColumnDefinition[];
    type AnalysisSourceProposedAmbiguousColumnResolutions = ProposedAmbiguousColumnResolution[];
    type AnalysisSourceDetection = FormatDetection;
    type AnalysisSourceStage = StoredStage;
    type AnalysisSourceVirtualColumnData = ColumnData[];
    /** JSON null when the mapping has no effective date (the engine's `null`). */
    type AnalysisSourceEffectiveDates = EffectiveDateSummary | null;
    /** JSON null when the mapping has no account. */
    type AnalysisSourceAccounts = DiscoveredAccount[] | null;
    type AnalysisSourceParse = StoredParse;
    type TransactionIdPreviewIndicators = StoredIndicators;
    type TransactionIdPreviewEntryPreviews = EntryPreview[];
  }
}
