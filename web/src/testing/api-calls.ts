const isThumbnailRequest = (input: unknown) => String(input).includes('/api/thumbnails/');
/** The player's rewind reads the aircraft's recordings now and then (decision 0088). */
const isRecordingsRequest = (input: unknown) => String(input).includes('/api/recordings');

/**
 * The calls of a stubbed fetch that were not made in the background: the stream cards' thumbnail
 * requests and the rewind's list of recordings.
 */
export function callsBesideThumbnails(fetchSpy: { mock: { calls: unknown[][] } }): unknown[][] {
  return fetchSpy.mock.calls.filter(
    ([input]) => !isThumbnailRequest(input) && !isRecordingsRequest(input),
  );
}

/** Whether a fetch is a stream card's thumbnail request (a test's stub answers it apart). */
export { isThumbnailRequest, isRecordingsRequest };
