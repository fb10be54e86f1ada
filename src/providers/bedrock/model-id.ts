/**
 * Bedrock model ids in URLs (the grammar is the shared table's, `core/model-name.ts`): foundation-model and
 * inference-profile ids (`anthropic.claude-sonnet-4-5-20250929-v1:0`, `us.amazon.nova-pro-v1:0`) and
 * ARNs (`arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123`). The id is
 * one path segment: encoded whole (`:` → `%3A`, `/` → `%2F`), so SigV4 double-encodes it in the
 * canonical request, as AWS requires.
 */
import { assertModelName, modelNameProblem } from '../../core/model-name.ts';

/** Whether `model` is a Bedrock model id or ARN (the shared grammar table's `bedrock-converse` row). */
export function isModelId(model: string): boolean {
  return modelNameProblem(model, 'bedrock-converse') === undefined;
}

/** The region named by an ARN (`arn:aws:bedrock:<region>:…`), if any. */
export function regionOfArn(model: string): string | undefined {
  if (!model.startsWith('arn:')) return undefined;
  const region = model.split(':')[3];
  return region === undefined || region === '' ? undefined : region;
}

/** The partition named by an ARN (`arn:<partition>:bedrock:…`: `aws`, `aws-cn`, `aws-us-gov`), if any. */
export function partitionOfArn(model: string): string | undefined {
  return model.startsWith('arn:') ? model.split(':')[1] : undefined;
}

/**
 * The id as one encoded path segment; an id outside the grammar is an `InvalidRequestError`
 * (`invalid_model_name`), before any request.
 */
export function modelPath(model: string, site: { provider: string }): string {
  assertModelName(model, 'bedrock-converse', site.provider);
  return encodeURIComponent(model);
}

/** AWS region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-4`. */
const regionPattern = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

/** Whether `region` has the shape of an AWS region name (it may still not exist). */
export function isRegion(region: string): boolean {
  return regionPattern.test(region);
}
