/**
 * The Recordings page's download (docs/product.md#recordings, decision 0081): the download being
 * prepared as its bytes come, and a 429's wait.
 */
import { render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { RecordingsRoute } from './recordings';

const SPAN = {
  span: '1795938651451',
  start: '2026-11-29T07:50:51.451Z',
  end: '2026-11-29T07:50:57.451Z',
  startMs: 1795938651451,
  endMs: 1795938657451,
  publisher: 'camera',
  mimeType: 'video/webm; codecs="vp8,opus"',
  segments: [{ name: '0000000000-6000.webm', offsetMs: 0, durationMs: 6000 }],
};
const downloadName = fillText(recordingsText.download, { start: '07:50:51', end: '07:50:57' });

/** The list, then whatever `download` answers for the download. */
function stubApi(download: () => Response) {
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) =>
      Promise.resolve(
        String(input).includes('/download')
          ? download()
          : new Response(JSON.stringify({ aircraft: [{ stageId: 'N743AS', spans: [SPAN] }] }), {
              status: 200,
              headers: { 'Content-Type': 'application/json' },
            }),
      ),
    ),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderPage() {
  localStorage.setItem('token', 't');
  return render(
    <MemoryRouter>
      <RecordingsRoute />
    </MemoryRouter>,
  );
}

describe('the Recordings page’s download', () => {
  it('shows the download being prepared with the megabytes received, the button disabled meanwhile', async () => {
    let send: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        send = controller;
      },
    });
    stubApi(() => new Response(body, { status: 200, headers: { 'content-type': 'video/webm' } }));
    // jsdom has no blob URLs: the page's save of the file gets a made-up one.
    class UrlWithBlobs extends URL {
      static override createObjectURL = () => 'blob:recording';
      static override revokeObjectURL = () => undefined;
    }
    vi.stubGlobal('URL', UrlWithBlobs);
    renderPage();
    const button = await screen.findByRole('button', { name: downloadName });
    button.click();
    expect(
      await screen.findByText(fillText(recordingsText.downloadPreparing, { size: '0.0' })),
    ).toHaveAttribute('role', 'status');
    expect(button).toBeDisabled();
    send?.enqueue(new Uint8Array(2_500_000));
    expect(
      await screen.findByText(fillText(recordingsText.downloadPreparing, { size: '2.5' })),
    ).toBeInTheDocument();
    send?.close();
    await waitFor(() => expect(screen.queryByRole('status')).not.toBeInTheDocument());
    expect(button).toBeEnabled();
  });

  it('says when to try again when the API answers 429', async () => {
    stubApi(
      () =>
        new Response(
          JSON.stringify({ error: 'Too many downloads at once; try again in 10 seconds' }),
          {
            status: 429,
            headers: { 'retry-after': '10', 'content-type': 'application/json' },
          },
        ),
    );
    renderPage();
    (await screen.findByRole('button', { name: downloadName })).click();
    expect(
      await screen.findByText(fillText(recordingsText.downloadBusy, { seconds: '10' })),
    ).toHaveAttribute('role', 'alert');
  });
});
