/** Two turns, three providers, one tool — with usage and cost. Run: `node examples/tool-conversation.ts` (needs the three keys). */
import { z } from 'zod';
import { createSwitchyard, type Reply, type SwitchyardOptions, tool } from '../src/index.ts';

const weather = tool({
  name: 'weather',
  description: 'The current weather in a city',
  input: z.object({ city: z.string() }),
});
const skies: Record<string, string> = { Paris: 'rain, 12°C', Oslo: 'snow, -3°C' };

export async function main(options: SwitchyardOptions = {}): Promise<string[]> {
  const sy = createSwitchyard(options);
  const chat = sy.conversation({ model: 'sonnet', system: 'Answer in one sentence.', tools: [weather] });
  const answerTools = async (reply: Reply) => {
    for (const call of reply.toolCalls) {
      const { city } = await weather.parse(call.input);
      chat.addToolResults([{ call, output: skies[city] ?? 'unknown city' }]);
    }
  };

  let reply = await chat.send('Do I need an umbrella in Paris today?'); // Claude calls the tool
  await answerTools(reply);
  chat.model = 'gpt-mini'; // GPT answers from Claude's call and our result
  reply = await chat.send();
  const lines = [`turn 1 (${reply.model}): ${reply.text}`];

  chat.model = 'flash'; // turn 2 on Gemini, same transcript
  reply = await chat.send('And in Oslo?');
  await answerTools(reply);
  reply = await chat.send();
  lines.push(`turn 2 (${reply.model}): ${reply.text}`);
  lines.push(
    `tokens in/out: ${chat.usage.input}/${chat.usage.output}, cost: $${chat.usage.cost?.amount ?? '?'}`,
  );
  await sy.close();
  return lines;
}

if (import.meta.main) for (const line of await main()) console.log(line);
