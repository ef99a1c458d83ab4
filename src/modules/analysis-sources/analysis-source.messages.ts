/**
 * An analysis source's `errors` and `warnings` items (wire reference 8): a stable code a client can
 * branch on and the English text to show. Codes: the failing step's (JobError codes in
 * analysis-source.steps.ts and .workflow.ts: FILE_NOT_ANALYZED, FILE_MISSING, EMPTY_FILE,
 * NOT_TABULAR, COLUMN_MAPPING_FAILED, NO_DATA_ROWS, NO_TRANSACTION_ID_CANDIDATE,
 * INVALID_TRANSACTION_ID_SELECTION, SOURCE_DELETED, UNKNOWN_SOURCE_TYPE), the job runtime's
 * (JOB_INTERRUPTED, UNEXPECTED_ERROR) or an API error's; warnings: UNPARSEABLE_VALUES.
 */
export interface SourceMessage {
  code: string;
  defaultMessage: string;
}

export function sourceMessage(code: string, defaultMessage: string): SourceMessage {
  return { code, defaultMessage };
}
