/** Contender (a): a raw `fetch` byte reader, the transport floor: no decoding, no parsing. */
import { models, type Protocol } from '../payloads.ts';
import { requestBody, requestHeaders } from './request.ts';
import { apiPath, type Contender, type Outcome, type Target } from './types.ts';

/** Reads every body chunk and counts bytes; the outcome carries no text (checked by byte count). */
export function createContender(protocol: Protocol): Contender {
  return {
    id: 'raw-fetch',
    label: 'fetch bytes',
    async prepare(target: Target) {
      const url = target.root + apiPath(protocol, models[protocol]);
      const init = {
        method: 'POST',
        headers: requestHeaders(protocol),
        body: requestBody(protocol, target.scenario),
      };
      return {
        async run(): Promise<Outcome> {
          const response = await fetch(url, init);
          if (!response.ok || response.body === null) throw new Error(`raw fetch: HTTP ${response.status}`);
          const reader = response.body.getReader();
          let bytes = 0;
          let reads = 0;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            bytes += value.byteLength;
            reads++;
          }
          return { text: '', toolInput: undefined, events: 0, bytes, reads };
        },
        async close() {},
      };
    },
  };
}
