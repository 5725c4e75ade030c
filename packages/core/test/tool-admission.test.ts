import { describe, expect, it } from 'vitest';

import { admitTool, admitTools, findHeaderAnnotations, isHttpToken, isSensitiveName } from '../src/tool-admission.js';
import type { AdmissibleTool } from '../src/tool-admission.js';

import { captureLog } from './fixtures/log-capture.js';

const region = { type: 'string', 'x-mcp-header': 'Region' } as const;

function tool(inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>): AdmissibleTool {
  return { name: 'route_report', inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }) };
}

describe('admitted descriptors', () => {
  it('admits a direct inputSchema property of each allowed type and reports the headers it mirrors', () => {
    const verdict = admitTool(
      tool({
        type: 'object',
        properties: {
          region,
          limit: { type: 'integer', 'x-mcp-header': 'Limit' },
          dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          note: { type: 'string' },
        },
      }),
    );
    expect(verdict).toEqual({
      admitted: true,
      headers: [
        { property: 'region', header: 'Mcp-Param-Region' },
        { property: 'limit', header: 'Mcp-Param-Limit' },
        { property: 'dryRun', header: 'Mcp-Param-Dry-Run' },
      ],
    });
  });

  it('admits a tool without annotations, and does not read annotation-like keys inside default, const or enum values', () => {
    const verdict = admitTool(
      tool({
        type: 'object',
        properties: {
          filter: {
            type: 'object',
            default: { 'x-mcp-header': 'Region' },
            enum: [{ 'x-mcp-header': 'A' }],
            const: { 'x-mcp-header': 'B' },
          },
        },
      }),
    );
    expect(verdict).toEqual({ admitted: true, headers: [] });
  });
});

describe('header_location: only a direct member of inputSchema.properties', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'a nested object property',
      { type: 'object', properties: { target: { type: 'object', properties: { region } } } },
      '/properties/target/properties/region',
    ],
    [
      'array items',
      { type: 'object', properties: { regions: { type: 'array', items: region } } },
      '/properties/regions/items',
    ],
    [
      'a prefixItems entry',
      { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, region] } } },
      '/properties/pair/prefixItems/1',
    ],
    [
      'a oneOf branch',
      { type: 'object', properties: { where: { oneOf: [{ type: 'integer' }, region] } } },
      '/properties/where/oneOf/1',
    ],
    ['an anyOf branch', { type: 'object', anyOf: [{ properties: { region } }] }, '/anyOf/0/properties/region'],
    [
      'an allOf branch',
      { type: 'object', allOf: [{ type: 'object', properties: { region } }] },
      '/allOf/0/properties/region',
    ],
    [
      'a $defs entry reached by $ref',
      { type: 'object', properties: { region: { $ref: '#/$defs/Region' } }, $defs: { Region: region } },
      '/$defs/Region',
    ],
    ['a definitions entry', { type: 'object', properties: {}, definitions: { Region: region } }, '/definitions/Region'],
    ['the root of inputSchema', { type: 'object', 'x-mcp-header': 'Region' }, ''],
    ['additionalProperties', { type: 'object', additionalProperties: region }, '/additionalProperties'],
    [
      'an OpenAPI components entry (an unknown keyword)',
      { type: 'object', components: { schemas: { Region: region } } },
      '/components/schemas/Region',
    ],
  ];
  for (const [where, inputSchema, pointer] of cases) {
    it(`refuses the annotation on ${where}`, () => {
      expect(admitTool(tool(inputSchema))).toEqual({
        admitted: false,
        refusals: [
          {
            rule: 'header_location',
            schema: 'inputSchema',
            pointer,
            header: 'Mcp-Param-Region',
            message: `x-mcp-header is allowed only on a direct member of inputSchema.properties, found at inputSchema ${pointer === '' ? 'root' : pointer}`,
          },
        ],
      });
    });
  }

  it('refuses the annotation anywhere in outputSchema, even on a direct property', () => {
    const verdict = admitTool(
      tool({ type: 'object', properties: { region: { type: 'string' } } }, { type: 'object', properties: { region } }),
    );
    expect(verdict).toEqual({
      admitted: false,
      refusals: [
        {
          rule: 'header_location',
          schema: 'outputSchema',
          pointer: '/properties/region',
          header: 'Mcp-Param-Region',
          message:
            'x-mcp-header is allowed only on a direct member of inputSchema.properties, found at outputSchema /properties/region',
        },
      ],
    });
  });
});

describe('header_name_syntax: an HTTP token', () => {
  const bad: [unknown, string][] = [
    ['', 'a string with other characters'],
    ['Region Name', 'a string with other characters'],
    ['Region:', 'a string with other characters'],
    ['Région', 'a string with other characters'],
    ['Region\r\nX-Injected: 1', 'a string with other characters'],
    [42, 'a number'],
    [null, 'a null'],
  ];
  for (const [name, got] of bad) {
    it(`refuses ${JSON.stringify(name)}`, () => {
      const verdict = admitTool(
        tool({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': name } } }),
      );
      expect(verdict.admitted).toBe(false);
      if (verdict.admitted) return;
      expect(verdict.refusals).toEqual([
        {
          rule: 'header_name_syntax',
          schema: 'inputSchema',
          pointer: '/properties/region',
          ...(typeof name === 'string' ? { header: `Mcp-Param-${name}` } : {}),
          message: `x-mcp-header must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_\`|~), got ${got}`,
        },
      ]);
    });
  }

  it('accepts every tchar and rejects separators', () => {
    expect(isHttpToken("Az09!#$%&'*+-.^_`|~")).toBe(true);
    for (const separator of [
      '(',
      ')',
      ',',
      '/',
      ';',
      '<',
      '=',
      '>',
      '?',
      '@',
      '[',
      '\\',
      ']',
      '{',
      '}',
      '"',
      ' ',
      '\t',
    ]) {
      expect(isHttpToken(`Region${separator}`)).toBe(false);
    }
  });
});

describe('header_name_duplicate: unique ignoring case', () => {
  it('refuses a second property naming the same header in another case', () => {
    const verdict = admitTool(
      tool({ type: 'object', properties: { region, zone: { type: 'string', 'x-mcp-header': 'REGION' } } }),
    );
    expect(verdict).toEqual({
      admitted: false,
      refusals: [
        {
          rule: 'header_name_duplicate',
          schema: 'inputSchema',
          pointer: '/properties/zone',
          header: 'Mcp-Param-REGION',
          message:
            'header names are unique ignoring case, and the property at /properties/region already names this one',
        },
      ],
    });
  });

  it('admits the same header name in two different tools', () => {
    const log = captureLog();
    const tools = [
      tool({ type: 'object', properties: { region } }),
      { ...tool({ type: 'object', properties: { region } }), name: 'other' },
    ];
    expect(admitTools(tools, log.logger)).toEqual(tools);
    expect(log.lines).toEqual([]);
  });
});

describe('header_property_type: string, integer or boolean', () => {
  const bad: [unknown, string][] = [
    ['number', 'type "number"'],
    ['object', 'type "object"'],
    ['array', 'type "array"'],
    ['null', 'type "null"'],
    [['string', 'null'], 'type ["string","null"]'],
    [undefined, 'no type'],
  ];
  for (const [type, described] of bad) {
    it(`refuses ${described}`, () => {
      const property = { ...(type === undefined ? {} : { type }), 'x-mcp-header': 'Amount' };
      expect(admitTool(tool({ type: 'object', properties: { amount: property } }))).toEqual({
        admitted: false,
        refusals: [
          {
            rule: 'header_property_type',
            schema: 'inputSchema',
            pointer: '/properties/amount',
            header: 'Mcp-Param-Amount',
            message: `a property mirrored into a header must have type "string", "integer" or "boolean", "amount" has ${described}`,
          },
        ],
      });
    });
  }
});

describe('header_sensitive_name: no credentials in headers', () => {
  const sensitive = [
    'password',
    'Passwd',
    'secret',
    'client_secret',
    'token',
    'refresh_token',
    'NextToken',
    'api_key',
    'apiKey',
    'X-Api-Key',
    'authorization',
    'Auth',
    'credentials',
    'cookie',
    'private.key',
    'sessionId',
  ];
  for (const name of sensitive) {
    it(`refuses the property name ${name}`, () => {
      expect(
        admitTool(tool({ type: 'object', properties: { [name]: { type: 'string', 'x-mcp-header': 'Routing' } } })),
      ).toEqual({
        admitted: false,
        refusals: [
          {
            rule: 'header_sensitive_name',
            schema: 'inputSchema',
            pointer: `/properties/${name}`,
            header: 'Mcp-Param-Routing',
            message: `"${name}" looks like a credential, which must not travel in a request header`,
          },
        ],
      });
    });
  }

  it('refuses a harmless property mirrored under a credential header name', () => {
    const verdict = admitTool(
      tool({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Authorization' } } }),
    );
    expect(verdict).toEqual({
      admitted: false,
      refusals: [
        {
          rule: 'header_sensitive_name',
          schema: 'inputSchema',
          pointer: '/properties/region',
          header: 'Mcp-Param-Authorization',
          message: '"Authorization" looks like a credential, which must not travel in a request header',
        },
      ],
    });
  });

  it('does not flag ordinary names', () => {
    for (const name of ['region', 'marketplaceId', 'author', 'keyword', 'monkey', 'passenger_count', 'limit'])
      expect(isSensitiveName(name)).toBe(false);
  });
});

describe('several rules at once', () => {
  it('lists every broken rule of a descriptor, per annotation, then the duplicates', () => {
    const verdict = admitTool(
      tool({
        type: 'object',
        properties: {
          api_key: { type: 'number', 'x-mcp-header': 'Api Key' },
          a: { type: 'string', 'x-mcp-header': 'A' },
          b: { type: 'string', 'x-mcp-header': 'a' },
        },
      }),
    );
    expect(verdict.admitted).toBe(false);
    if (verdict.admitted) return;
    expect(verdict.refusals.map((refusal) => [refusal.rule, refusal.pointer])).toEqual([
      ['header_name_syntax', '/properties/api_key'],
      ['header_property_type', '/properties/api_key'],
      ['header_sensitive_name', '/properties/api_key'],
      ['header_name_duplicate', '/properties/b'],
    ]);
  });

  it('finds the annotations of a tree in document order with escaped pointers', () => {
    const annotations = findHeaderAnnotations(
      { properties: { 'a/b': region, 'c~d': { type: 'object', properties: { e: region } } } },
      'inputSchema',
    );
    expect(annotations.map(({ pointer, property }) => [pointer, property])).toEqual([
      ['/properties/a~1b', 'a/b'],
      ['/properties/c~0d/properties/e', undefined],
    ]);
  });
});

describe('admitTools', () => {
  it('keeps the good tools in order and logs one line per refused tool, naming the tool and the rule', () => {
    const log = captureLog();
    const good = { name: 'get_report', inputSchema: { type: 'object', properties: { region } } };
    const nested = {
      name: 'nested_header',
      inputSchema: { type: 'object', properties: { target: { type: 'object', properties: { region } } } },
    };
    const last = { name: 'list_reports', inputSchema: { type: 'object' } };
    expect(admitTools([good, nested, last], log.logger)).toEqual([good, last]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      level: 40,
      tool: 'nested_header',
      rule: 'header_location',
      header: 'Mcp-Param-Region',
      schema: 'inputSchema',
      pointer: '/properties/target/properties/region',
      msg: 'tool "nested_header" is left out: its x-mcp-header annotation breaks the header_location rule (x-mcp-header is allowed only on a direct member of inputSchema.properties, found at inputSchema /properties/target/properties/region)',
    });
  });

  it('writes header names into the log line, never a value the descriptor holds', () => {
    const log = captureLog();
    const values = ['sk-live-51Hq8ZexampleSecretValue', 'hunter2-default', 'enum-choice-value', 'const-value-77'];
    const leaky = {
      name: 'login',
      inputSchema: {
        type: 'object',
        properties: {
          api_key: {
            type: 'string',
            'x-mcp-header': 'Api-Key',
            default: values[0],
            examples: [values[1]],
            enum: [values[2], values[0]],
            const: values[3],
          },
        },
      },
    };
    expect(admitTools([leaky], log.logger)).toEqual([]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ tool: 'login', rule: 'header_sensitive_name', header: 'Mcp-Param-Api-Key' });
    for (const value of values) expect(log.raw[0]).not.toContain(value);
  });
});
