const isThumbnailRequest = (input: unknown) => String(input).includes('/api/thumbnails/');

/** The calls of a stubbed fetch that were not the stream cards' thumbnail requests. */
export function callsBesideThumbnails(fetchSpy: { mock: { calls: unknown[][] } }): unknown[][] {
  return fetchSpy.mock.calls.filter(([input]) => !isThumbnailRequest(input));
}

/** Whether a fetch is a stream card's thumbnail request (a test's stub answers it apart). */
export { isThumbnailRequest };
