// Generated from schemas/error-envelope-v2.schema.json by scripts/embed-json.mjs (run by the build); edit the JSON file.
/** The parsed `schemas/error-envelope-v2.schema.json`. */
export const errorEnvelopeSchemaV2Document: unknown = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://mcp-envelope.dev/schemas/v2/error-envelope.schema.json",
  "title": "MCP error envelope, contract version 2",
  "description": "The object every conforming MCP tool server returns for a failed tools/call, on every channel, to a client that reads contract version 2. No error_kind names a vendor: the upstream API is named by the upstream field. Unknown top-level and _meta keys are allowed so that later additive fields do not break older validators.",
  "type": "object",
  "required": [
    "error_kind",
    "tool",
    "summary",
    "details",
    "hints",
    "examples",
    "error_code",
    "retryable",
    "_envelope_version"
  ],
  "properties": {
    "error_kind": {
      "$ref": "#/$defs/errorKind",
      "description": "Which handler should run. Closed taxonomy."
    },
    "tool": {
      "type": "string",
      "minLength": 1,
      "description": "Name of the tool that failed, or \"unknown_tool\" when the server cannot know it."
    },
    "summary": {
      "type": "string",
      "minLength": 1,
      "description": "One line for humans. Do not match on its wording."
    },
    "details": {
      "type": "array",
      "items": {
        "$ref": "#/$defs/detail"
      },
      "description": "One record per issue found."
    },
    "hints": {
      "type": "array",
      "items": {
        "type": "string"
      },
      "description": "What to do next, as plain strings. Servers may cap the count and length."
    },
    "examples": {
      "type": "array",
      "description": "Examples of valid input; often empty."
    },
    "error_code": {
      "type": "string",
      "minLength": 1,
      "pattern": "^[A-Z][A-Z0-9_]*$",
      "description": "Stable UPPER_SNAKE_CASE code: the same condition gives the same code on every server."
    },
    "retryable": {
      "type": "boolean",
      "description": "True when sending the same call again could succeed."
    },
    "_envelope_version": {
      "const": 2,
      "description": "Contract version of this envelope; the integer 2."
    },
    "upstream": {
      "type": "string",
      "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$",
      "description": "The upstream API the failure came from (sp-api, ads-api, github, ...). Required with upstream_http, upstream_client and UPSTREAM_HTTP_* codes; absent when the server itself failed."
    },
    "legacy_error_kind": {
      "$ref": "#/$defs/legacyErrorKind",
      "description": "The error_kind the previous release emitted for this condition (a version 1 kind after the move to version 2). Present for one release only."
    },
    "_meta": {
      "$ref": "#/$defs/meta"
    }
  },
  "additionalProperties": true,
  "$defs": {
    "errorKind": {
      "type": "string",
      "enum": [
        "mcp_input_validation",
        "tool_not_found",
        "upstream_http",
        "upstream_client",
        "auth_error",
        "rate_limited",
        "sandbox_runtime",
        "internal_error"
      ]
    },
    "legacyErrorKind": {
      "type": "string",
      "description": "A kind of contract version 2 or 1.",
      "enum": [
        "mcp_input_validation",
        "tool_not_found",
        "upstream_http",
        "upstream_client",
        "auth_error",
        "rate_limited",
        "sandbox_runtime",
        "internal_error",
        "sp_api_http",
        "ads_api_http",
        "sp_api_client",
        "ads_api_client"
      ]
    },
    "detail": {
      "type": "object",
      "required": [
        "path",
        "issue",
        "received_type"
      ],
      "properties": {
        "path": {
          "type": "string",
          "description": "JSON-pointer path without the leading slash (filters/0/marketplaceId); a top-level field is its bare name; empty when no field applies."
        },
        "issue": {
          "type": "string",
          "description": "What is wrong, for humans."
        },
        "received_type": {
          "type": "string",
          "description": "JSON type of the value received (string, integer, number, boolean, array, object, null)."
        },
        "received_value": {
          "description": "SCHEMA_* details: the value received, a string cut to 200 characters (then received_truncated is true), an array or object only when its JSON has at most 200 characters; \"[REDACTED]\" when it looks like a secret. Absent when nothing was sent."
        },
        "received_truncated": {
          "const": true,
          "description": "Present when received_value is a cut string (it ends with …)."
        },
        "expected": {
          "type": "string",
          "description": "SCHEMA_* details: what would have passed, in a few words, for humans and agents."
        },
        "did_you_mean": {
          "description": "SCHEMA_* details: the nearest value that passes the failed check (for SCHEMA_ADDITIONAL_PROPERTIES, the nearest declared key name). Absent when none can be found without guessing."
        }
      },
      "additionalProperties": true
    },
    "normalizedEvent": {
      "type": "object",
      "required": [
        "kind"
      ],
      "properties": {
        "kind": {
          "enum": [
            "renamed",
            "dropped_alias",
            "coerced",
            "unknown_field_passed_through",
            "unknown_field_rejected"
          ]
        },
        "from": {
          "type": "string"
        },
        "to": {
          "type": "string"
        },
        "canonical": {
          "type": "string"
        },
        "field": {
          "type": "string"
        },
        "from_type": {
          "type": "string"
        },
        "to_type": {
          "type": "string"
        },
        "reason": {
          "type": "string"
        }
      },
      "allOf": [
        {
          "if": {
            "properties": {
              "kind": {
                "const": "renamed"
              }
            },
            "required": [
              "kind"
            ]
          },
          "then": {
            "required": [
              "from",
              "to"
            ]
          }
        },
        {
          "if": {
            "properties": {
              "kind": {
                "const": "dropped_alias"
              }
            },
            "required": [
              "kind"
            ]
          },
          "then": {
            "required": [
              "from",
              "canonical"
            ]
          }
        },
        {
          "if": {
            "properties": {
              "kind": {
                "const": "coerced"
              }
            },
            "required": [
              "kind"
            ]
          },
          "then": {
            "required": [
              "field",
              "from_type",
              "to_type"
            ]
          }
        },
        {
          "if": {
            "properties": {
              "kind": {
                "const": "unknown_field_passed_through"
              }
            },
            "required": [
              "kind"
            ]
          },
          "then": {
            "required": [
              "field"
            ]
          }
        },
        {
          "if": {
            "properties": {
              "kind": {
                "const": "unknown_field_rejected"
              }
            },
            "required": [
              "kind"
            ]
          },
          "then": {
            "required": [
              "field"
            ]
          }
        }
      ],
      "additionalProperties": true
    },
    "rateLimit": {
      "type": "object",
      "description": "Upstream rate-limit headroom: a limit per any window and a reset, as far as the upstream stated them. Absent keys stay absent, never null. Unknown keys are allowed (a later minor release may add some).",
      "minProperties": 1,
      "properties": {
        "limit": {
          "type": [
            "number",
            "string"
          ],
          "description": "Requests allowed per window_seconds: a number when the header parses as one, else the raw header value."
        },
        "window_seconds": {
          "type": "number",
          "exclusiveMinimum": 0,
          "description": "The window limit counts over, in seconds."
        },
        "limit_per_second": {
          "type": [
            "number",
            "string"
          ],
          "description": "The limit as a rate per second, where the upstream states one (as in version 1)."
        },
        "remaining": {
          "type": [
            "number",
            "string"
          ],
          "description": "Requests left in the current window: a number when the header parses as one, else the raw header value."
        },
        "reset_at": {
          "type": "string",
          "description": "The raw upstream value, whatever its format."
        },
        "reset_after_seconds": {
          "type": "number",
          "minimum": 0,
          "description": "Seconds until the window resets; may be fractional."
        }
      },
      "additionalProperties": true
    },
    "warning": {
      "type": "object",
      "required": [
        "kind",
        "summary",
        "details",
        "hints"
      ],
      "properties": {
        "kind": {
          "type": "string",
          "minLength": 1
        },
        "summary": {
          "type": "string"
        },
        "details": {
          "type": "array"
        },
        "hints": {
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "additionalProperties": true
    },
    "meta": {
      "type": "object",
      "description": "Optional telemetry. Clients must accept its absence and ignore keys they do not know.",
      "properties": {
        "normalized": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/normalizedEvent"
          }
        },
        "rate_limit": {
          "$ref": "#/$defs/rateLimit"
        },
        "retry_after_seconds": {
          "type": "number",
          "minimum": 0,
          "description": "Seconds to wait before retrying; may be fractional."
        },
        "warnings": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/warning"
          }
        },
        "correlation_id": {
          "type": "string",
          "minLength": 1,
          "description": "Matches the server log line that holds the detail of an internal error."
        },
        "validator": {
          "type": "string",
          "minLength": 1,
          "description": "The JSON Schema keyword that failed, on SCHEMA_VALIDATION_FAILED envelopes (the fallback code)."
        }
      },
      "additionalProperties": true
    }
  },
  "allOf": [
    {
      "if": {
        "properties": {
          "error_kind": {
            "enum": [
              "upstream_http",
              "upstream_client"
            ]
          }
        },
        "required": [
          "error_kind"
        ]
      },
      "then": {
        "required": [
          "upstream"
        ]
      }
    },
    {
      "if": {
        "properties": {
          "error_code": {
            "type": "string",
            "pattern": "^UPSTREAM_HTTP_"
          }
        },
        "required": [
          "error_code"
        ]
      },
      "then": {
        "required": [
          "upstream"
        ]
      }
    }
  ]
};
