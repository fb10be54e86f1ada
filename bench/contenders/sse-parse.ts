/** Contender (b): `fetch` + `eventsource-parser` + `JSON.parse` per event + minimal accumulation: the floor. */
import { createParser } from 'eventsource-parser';
import { models, type Protocol } from '../payloads.ts';
import { requestBody, requestHeaders } from './request.ts';
import { apiPath, type Contender, type Outcome, type Target } from './types.ts';
import { Collector } from './wire.ts';

/** Decodes UTF-8 in stream mode, splits SSE events, parses each `data:` once, joins the text once. */
export function createContender(protocol: Protocol): Contender {
  return {
    id: 'sse-parse',
    label: 'eventsource-parser',
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
          if (!response.ok || response.body === null) throw new Error(`sse-parse: HTTP ${response.status}`);
          const collector = new Collector(protocol);
          const parser = createParser({
            onEvent(message) {
              if (message.data !== '[DONE]') collector.add(JSON.parse(message.data));
            },
          });
          const decoder = new TextDecoder();
          const reader = response.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parser.feed(decoder.decode(value, { stream: true }));
          }
          parser.feed(decoder.decode());
          parser.reset({ consume: true });
          return collector.finish();
        },
        async close() {},
      };
    },
  };
}
