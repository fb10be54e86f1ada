/** Converse tool-use ids: `[a-zA-Z0-9_-]+`, at most 64 characters (as on the Messages API). */
import { hashId, type ToolIdRule } from '../../core/tool-id-map.ts';

const pattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Ids of other providers that break the rule are replaced by a stable hash. */
export const toolIdRule: ToolIdRule = {
  test: (id) => pattern.test(id),
  rewrite: (id) => `tooluse_${hashId(id, 24)}`,
};
