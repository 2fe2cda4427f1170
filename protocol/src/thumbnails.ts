/**
 * The contract between the API and the thumbnail process (docs/decisions/0070-thumbnails.md):
 * the thumbnail process answers on a Unix socket in DATA_DIR, which both processes find without
 * a port of their own, and watches the stage with SUBSCRIBE tokens of its own `user_id`, by which
 * the stage counts its sessions apart from viewers'.
 */

/** The socket file in DATA_DIR the thumbnail process listens on (loopback by construction). */
export const THUMBNAILS_SOCKET_FILE = 'thumbnails.sock';

/** The `user_id` of the thumbnail process's SUBSCRIBE tokens (an account's never has it). */
export const THUMBNAILS_USER_ID = 'tailcam-thumbnails';

/** The path the thumbnail process answers a picture of `stageId` at. */
export function thumbnailPath(stageId: string): string {
  return `/thumbnails/${encodeURIComponent(stageId)}`;
}

/** How long a thumbnail may take to answer before the API answers "no picture". */
export const THUMBNAIL_ANSWER_TIMEOUT_MS = 6_000;
