/** Which `functionCall` each `functionResponse` of a Gemini request answers. */

/** An issued call, and whether a response has answered it. */
interface OpenCall {
  id: string;
  answered: boolean;
}

/**
 * Calls without an id get `gc_<content>_<part>`; a response with an id answers the oldest open call
 * of that id (whatever its name), one without answers the oldest open call of its name. The open
 * calls are queued by id and by name (each answered call is skipped once in the other queue), so
 * matching N responses is linear: a search and splice of one list per response took O(N²)
 * (40,000 responses, 41 s on the event loop).
 */
export class CallIds {
  private readonly byId = new Map<string, Queue>();
  private readonly byName = new Map<string, Queue>();

  /** The id of a call (its own, else one made from its place), now open to an answer. */
  issue(given: string | undefined, name: string, content: number, part: number): string {
    const id = given ?? `gc_${content}_${part}`;
    const call: OpenCall = { id, answered: false };
    enqueue(this.byId, id, call);
    enqueue(this.byName, name, call);
    return id;
  }

  /** The id a response answers; undefined when it has none and no open call has its name. */
  answer(given: string | undefined, name: string): string | undefined {
    const call = given === undefined ? oldestOpen(this.byName, name) : oldestOpen(this.byId, given);
    if (call === undefined) return given;
    call.answered = true;
    return call.id;
  }
}

/** Open calls in the order issued; `head` is the first not yet taken (no shift: O(1) a take). */
interface Queue {
  calls: OpenCall[];
  head: number;
}

function enqueue(queues: Map<string, Queue>, key: string, call: OpenCall): void {
  const queue = queues.get(key);
  if (queue === undefined) queues.set(key, { calls: [call], head: 0 });
  else queue.calls.push(call);
}

/** The oldest call under `key` no response has answered yet (those answered through the other queue are passed over, once). */
function oldestOpen(queues: Map<string, Queue>, key: string): OpenCall | undefined {
  const queue = queues.get(key);
  if (queue === undefined) return undefined;
  while (queue.head < queue.calls.length && queue.calls[queue.head]!.answered) queue.head++;
  return queue.calls[queue.head];
}
