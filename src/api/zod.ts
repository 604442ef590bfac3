import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every API schema is built from this z, so .openapi() metadata is available everywhere.
extendZodWithOpenApi(z);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' && !Number.isFinite(value) ? 'not a number' : typeof value}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
  bigint: 'an integer',
};

// Messages that read after a field name: "body.name must be a string (got number)".
z.config({
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        if (issue.input === undefined) return 'is required';
        return `must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${describe(issue.input)})`;
      case 'invalid_value':
        return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
      case 'too_small': {
        const n = String(issue.minimum);
        if (issue.origin === 'string') return `must be at least ${n} character${n === '1' ? '' : 's'} long`;
        if (issue.origin === 'array') return `must have at least ${n} item${n === '1' ? '' : 's'}`;
        return `must be ${issue.inclusive ? 'at least' : 'greater than'} ${n}`;
      }
      case 'too_big': {
        const n = String(issue.maximum);
        if (issue.origin === 'string') return `must be at most ${n} characters long`;
        if (issue.origin === 'array') return `must have at most ${n} items`;
        return `must be ${issue.inclusive ? 'at most' : 'less than'} ${n}`;
      }
      case 'invalid_format':
        return issue.format === 'uuid'
          ? 'must be a UUID'
          : issue.format === 'datetime'
            ? 'must be an ISO 8601 date-time'
            : `must be a valid ${issue.format}`;
      default:
        return undefined;
    }
  },
});

export { z };
