import { errorMessage } from '../tape/errorMessage';

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

/** A file over the size limit for what it is read as (safeRead.ts): a caller may offer another way, such as an import. */
export class TapeFileTooLargeError extends TapeFileError {
  constructor(file: string, detail: string) {
    super(file, detail);
    this.name = 'TapeFileTooLargeError';
  }
}

/** An append refused before anything was written: with it the tape could pass its size limit (tapeSize.ts). */
export class TapeFullError extends TapeFileError {
  constructor(file: string, detail: string) {
    super(file, detail);
    this.name = 'TapeFullError';
  }
}

export class TapeLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holderPid: number,
    /** Where the holder is when it is not this host: whether that writer still runs cannot be checked from here. */
    readonly elsewhere?: { host: string; lockFile: string },
  ) {
    super(
      elsewhere === undefined
        ? `${file} is open for writing by another process or window (pid ${holderPid}); open it read-only instead`
        : `${file} is open for writing on another host, ${elsewhere.host} (pid ${holderPid}), whose processes cannot be checked from here; open it read-only instead, or delete ${elsewhere.lockFile} if no Agent Tape on ${elsewhere.host} has it open`,
    );
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
  /** `what` went wrong: by default the journal write or fsync. */
  constructor(file: string, cause: unknown, what = 'the journal could not be written') {
    super(`${file}: ${what} (${errorMessage(cause)}); the store refuses further appends, reopen it`);
    this.name = 'TapeStoreFailedError';
  }
}
