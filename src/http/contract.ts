import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/** What the server is about to send, as the contract sees it. */
export interface SentResponse {
  /** the operation's method and path template as the document writes them (e.g. get, /v1/payments/{id}); none for an unmatched route */
  operation?: { method: string; path: string };
  status: number;
  /** the Content-Type header, parameters included */
  contentType: string | undefined;
  /** the body as sent (JSON text for JSON media types) */
  body: Buffer | string | undefined;
  /** the body was streamed and is not at hand: only the status and content type are checked */
  bodyless?: boolean;
}

type OpenApiDocument = {
  paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  components?: { schemas?: Record<string, unknown> };
};

const DOCUMENT_ID = 'openapi.json';

/**
 * A copy of the document in which every object schema that lists its properties and says nothing of others admits
 * no others: an answer may carry only the fields the document names (a field the document forgot, or a secret that
 * slipped into a record, is a violation).
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = key === 'example' || key === 'examples' ? value : closeObjects(value);
  const isSchemaWithProperties = typeof copy.properties === 'object' && copy.properties !== null && !Array.isArray(copy.properties);
  if (isSchemaWithProperties && !('additionalProperties' in copy) && !('unevaluatedProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

function pointer(...segments: string[]): string {
  return segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0].trim().toLowerCase();
}

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/**
 * Checks answers against the OpenAPI document itself (not against the zod schemas it was generated from), with an
 * independent JSON Schema 2020-12 validator (Ajv): the status must be one the operation declares, the content type one
 * that status declares, and a JSON body must satisfy that content's schema. Answers to unmatched routes (404, 405) must
 * be problem details. Objects are closed (closeObjects). Used by tests (PAYPLANE_VALIDATE_RESPONSES=1) so that the published document cannot drift from
 * what the server sends.
 */
export function createContractCheck(document: unknown): (sent: SentResponse) => string[] {
  const doc = closeObjects(document) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string): ValidateFunction => {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOCUMENT_ID}#/${ref}` });
      compiled.set(ref, fn);
    }
    return fn;
  };

  return (sent) => {
    const type = mediaType(sent.contentType);
    let schemaRef: string | undefined;
    if (sent.operation) {
      const { method, path } = sent.operation;
      const responses = doc.paths?.[path]?.[method]?.responses;
      if (!responses) return [`${method.toUpperCase()} ${path} is not in the document`];
      const declared = responses[String(sent.status)];
      if (!declared)
        return [
          `${method.toUpperCase()} ${path} answered ${sent.status}, which the document does not declare (it declares ${Object.keys(responses).join(', ')})`,
        ];
      const content = declared.content ?? {};
      if (!type || !(type in content)) {
        return [
          `${method.toUpperCase()} ${path} ${sent.status} answered with Content-Type ${sent.contentType ?? '(none)'}; the document declares ${Object.keys(content).join(', ') || 'no content'}`,
        ];
      }
      if (isJson(type)) schemaRef = pointer('paths', path, method, 'responses', String(sent.status), 'content', type, 'schema');
    } else {
      if (type !== 'application/problem+json')
        return [`an unmatched route answered ${sent.status} with Content-Type ${sent.contentType ?? '(none)'}, not a problem`];
      schemaRef = pointer('components', 'schemas', 'Problem');
    }
    if (!schemaRef || sent.bodyless) return [];
    let body: unknown;
    try {
      body = JSON.parse(Buffer.isBuffer(sent.body) ? sent.body.toString('utf8') : (sent.body ?? ''));
    } catch {
      return [`the ${sent.status} answer is not valid JSON`];
    }
    const validate = validator(schemaRef);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    );
  };
}
