import { renderContent } from '../../content/render-content.ts';
import { throwForStatus } from '../../net/http-status.ts';
import type { FetchBackend } from '../fetch-backend.ts';

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5';

/** The floor of every fetch chain: the guarded HTTP client and the local content pipeline. */
export function createLocalFetchBackend(): FetchBackend {
  return {
    id: 'local',
    async fetchPage(request, context) {
      const response = await context.fetch(request.url, {
        signal: context.signal,
        headers: { accept: ACCEPT },
      });
      throwForStatus(response);
      const content = await renderContent({
        url: response.finalUrl,
        headers: response.headers,
        body: response.body,
        mode: request.mode,
        limits: request.limits,
      });
      return { url: response.url, finalUrl: response.finalUrl, status: response.status, content };
    },
  };
}
