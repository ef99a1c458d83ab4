/** Column mapping shapes of the wire reference (section 8), as the engine reads and returns them. */

export type MappingType = "AUTO" | "NOT_MAPPED" | "MANUAL";

export interface ColumnMapping {
  /** Source column: a file column (0..n-1) or an applied virtual column (n..). */
  position: number;
  /** The column's name. */
  field: string;
  platformField: string | null;
  /** With `platformField` blank: the column is kept as additional data under this name. */
  additionalColumnName?: string | null;
  mappingType: MappingType;
}

export interface ProposedColumnMapping {
  columnPosition?: number | null;
  platformField?: string | null;
  additionalColumnName?: string | null;
  /** Index into `proposedVirtualColumns` (instead of `columnPosition`). */
  virtualColumnIndex?: number | null;
}

export type VirtualColumnType = "DUPLICATE" | "SPLIT_BY_POSITION" | "SPLIT_BY_DELIMITER" | "JOIN";

export interface VirtualColumnDefinition {
  name: string;
  type: VirtualColumnType;
  /** DUPLICATE, SPLIT_BY_DELIMITER, SPLIT_BY_POSITION: the column read. */
  columnIndex?: number | null;
  /** JOIN: the columns joined. */
  columnIndices?: number[] | null;
  /** JOIN, SPLIT_BY_DELIMITER. */
  delimiter?: string | null;
  /** SPLIT_BY_DELIMITER: zero-based part. */
  splitIndex?: number | null;
  /** SPLIT_BY_POSITION: zero-based start (inclusive) and end (exclusive) character positions. */
  startPosition?: number | null;
  endPosition?: number | null;
}

/** An applied virtual column: its definition plus the column position it occupies. */
export interface VirtualColumn extends VirtualColumnDefinition {
  position: number;
}

export interface AmbiguousColumnResolution {
  position: number;
  ambiguousFormats: string[];
  selectedFormat: string | null;
}

export interface ProposedAmbiguousColumnResolution {
  position: number;
  selectedFormat: string;
}

/** Everything decided at column mapping, as stored on the analysis source. */
export interface AppliedMapping {
  columnMappings: ColumnMapping[];
  virtualColumns: VirtualColumn[];
  ambiguousColumnResolutions: AmbiguousColumnResolution[];
}
