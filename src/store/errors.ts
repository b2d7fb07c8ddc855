/**
 * Errors the store raises for problems a user can act on. Each names the file (and line, for
 * JSONL) so a message printed by the CLI or shown by the extension says where to look.
 */
export class TapeFileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
    readonly line?: number,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${detail}`);
    this.name = 'TapeFileError';
  }
}

export class TapeLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holderPid: number,
  ) {
    super(`${file} is open for writing by another process or window (pid ${holderPid}); open it read-only instead`);
    this.name = 'TapeLockedError';
  }
}

export class TapeQueryError extends Error {
  constructor(detail: string) {
    super(`bad search query: ${detail}`);
    this.name = 'TapeQueryError';
  }
}

/** The store cannot keep its promise that acknowledged appends are on disk (e.g. ENOSPC); reopen it. */
export class TapeStoreFailedError extends Error {
  constructor(file: string, cause: unknown) {
    super(`${file}: the journal could not be written (${cause instanceof Error ? cause.message : String(cause)}); the store refuses further appends, reopen it`);
    this.name = 'TapeStoreFailedError';
  }
}
