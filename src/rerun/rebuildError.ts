/** Why a recorded request cannot be rebuilt as asked: nothing was sent and nothing written. */
export type RebuildErrorCode =
  /** The tape has no such session. */
  | 'unknown_session'
  /** The entry is missing, not a `view/assembled` event, or a merged copy of a fork's request. */
  | 'not_a_request'
  /** The manifest or the tool set it names is not valid or was altered. */
  | 'invalid_record'
  /** The request was recorded before tool definitions were (or without its tool set). */
  | 'tools_not_recorded'
  /** No builder of this version knows the policy or builder version. */
  | 'cannot_rebuild'
  /** The variation is malformed or names what the request does not have. */
  | 'invalid_variation';

export class RebuildError extends Error {
  constructor(
    readonly code: RebuildErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RebuildError';
  }
}
