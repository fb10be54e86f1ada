/** A stored transcript shown again (on `--resume`, `/load`): one line per message, tool calls and results summarized. */
import type { Transcript } from '../../core/transcript.ts';
import { sanitize } from '../terminal-text.ts';
import { dim, type Screen, summarize } from './render.ts';

/** Prints `transcript` compactly: `you:`, the model's answers, tool calls and results. */
export function printTranscript(screen: Screen, transcript: Transcript): void {
  for (const item of transcript) {
    for (const part of item.parts) {
      if (part.type === 'text') {
        const who = item.kind === 'assistant' ? '' : `${item.kind === 'user' ? 'you' : item.kind}: `;
        screen.write(`${dim(screen, who)}${sanitize(part.text)}\n`);
      } else if (part.type === 'tool-call') {
        screen.write(`${dim(screen, '⚙')} ${sanitize(part.name)} ${sanitize(JSON.stringify(part.input))}\n`);
      } else if (part.type === 'tool-result') {
        screen.write(dim(screen, `  ${part.isError ? '✗' : '↳'} ${summarize(part)}\n`));
      } else if (part.type === 'media' || part.type === 'file') {
        screen.write(
          dim(screen, `[${part.type === 'file' ? (part.filename ?? part.mimeType) : part.mimeType}]\n`),
        );
      }
    }
    if (item.metadata?.['switchyard.interrupted'] === true) screen.write(dim(screen, '⏹ interrupted\n'));
  }
}
