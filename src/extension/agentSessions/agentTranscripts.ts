import { FollowedTranscripts } from '../../ingest/follow';

/**
 * The other agents' transcripts this window imported or followed, with where each was read to:
 * the import command and the follower share it, so each ingest reads only what a file gained since the last.
 */
export const agentTranscripts = new FollowedTranscripts();
