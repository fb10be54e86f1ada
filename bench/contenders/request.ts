/** The request bodies the hand-written contenders (a) and (b) send: what each provider's own SDK would send. */
import { benchTool, models, type Protocol, type Scenario } from '../payloads.ts';

/** A minimal streaming request body for `protocol`, with the bench tool in the tool scenario. */
export function requestBody(protocol: Protocol, scenario: Scenario): string {
  const prompt = 'Write a long answer.';
  const withTool = scenario === 'tool';
  if (protocol === 'anthropic') {
    const body: Record<string, unknown> = {
      model: models.anthropic,
      max_tokens: 64_000,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    };
    if (withTool)
      body.tools = [
        { name: benchTool.name, description: benchTool.description, input_schema: benchTool.schema },
      ];
    return JSON.stringify(body);
  }
  if (protocol === 'openai') {
    const body: Record<string, unknown> = {
      model: models.openai,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: prompt }],
    };
    if (withTool)
      body.tools = [
        {
          type: 'function',
          function: {
            name: benchTool.name,
            description: benchTool.description,
            parameters: benchTool.schema,
          },
        },
      ];
    return JSON.stringify(body);
  }
  if (protocol === 'responses') {
    const body: Record<string, unknown> = { model: models.responses, stream: true, input: prompt };
    if (withTool)
      body.tools = [
        {
          type: 'function',
          name: benchTool.name,
          description: benchTool.description,
          parameters: benchTool.schema,
          strict: false,
        },
      ];
    return JSON.stringify(body);
  }
  const body: Record<string, unknown> = { contents: [{ role: 'user', parts: [{ text: prompt }] }] };
  if (withTool)
    body.tools = [
      {
        functionDeclarations: [
          {
            name: benchTool.name,
            description: benchTool.description,
            parametersJsonSchema: benchTool.schema,
          },
        ],
      },
    ];
  return JSON.stringify(body);
}

/** The headers a hand-written client sends. */
export function requestHeaders(protocol: Protocol): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (protocol === 'anthropic') {
    headers['x-api-key'] = 'bench-key';
    headers['anthropic-version'] = '2023-06-01';
  } else if (protocol === 'openai' || protocol === 'responses') headers.authorization = 'Bearer bench-key';
  else headers['x-goog-api-key'] = 'bench-key';
  return headers;
}
