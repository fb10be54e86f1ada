/**
 * The Bedrock model-id grammar, checked before an id reaches a URL: foundation-model and
 * inference-profile ids (`anthropic.claude-sonnet-4-5-20250929-v1:0`, `us.amazon.nova-pro-v1:0`) and
 * ARNs (`arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123`). The id is
 * one path segment: encoded whole (`:` → `%3A`, `/` → `%2F`), so SigV4 double-encodes it in the
 * canonical request, as AWS requires.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';

const plainId = /^[A-Za-z0-9][A-Za-z0-9._-]*(?::[A-Za-z0-9._-]+)*$/;
const arnId =
  /^arn:aws(?:-[a-z]+)*:bedrock:[a-z0-9-]*:[0-9]{0,12}:[a-z-]+\/[A-Za-z0-9][A-Za-z0-9._-]*(?:[:/][A-Za-z0-9._-]+)*$/;
const maxLength = 2048;

/** Whether `model` is a Bedrock model id or ARN. */
export function isModelId(model: string): boolean {
  if (model.length === 0 || model.length > maxLength) return false;
  return model.startsWith('arn:') ? arnId.test(model) : plainId.test(model) && model.length <= 256;
}

/** The region named by an ARN (`arn:aws:bedrock:<region>:…`), if any. */
export function regionOfArn(model: string): string | undefined {
  if (!model.startsWith('arn:')) return undefined;
  const region = model.split(':')[3];
  return region === undefined || region === '' ? undefined : region;
}

/** The id as one encoded path segment; an id outside the grammar is an `InvalidRequestError` (`invalid_model`). */
export function modelPath(model: string, site: { provider: string; requestId?: string }): string {
  if (!isModelId(model))
    throw new InvalidRequestError({
      message: `${site.provider}: the model id is not a Bedrock model id or ARN (${model.length} characters; letters, digits, '.', '_', '-', ':' and ARN paths only)`,
      provider: site.provider,
      providerCode: 'invalid_model',
      ...(site.requestId === undefined ? {} : { requestId: site.requestId }),
    });
  return encodeURIComponent(model);
}

/** AWS region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-4`. */
const regionPattern = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

/** Whether `region` has the shape of an AWS region name (it may still not exist). */
export function isRegion(region: string): boolean {
  return regionPattern.test(region);
}
