// The official-SDK contender of bench/startup.ts: the same question as `switchyard ask`, streamed to stdout.
import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'bench-key', baseURL: process.argv[2], maxRetries: 0 });
const stream = await client.chat.completions.create({
  model: 'gpt-5-mini',
  messages: [{ role: 'user', content: 'Say hello.' }],
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
process.stdout.write('\n');
