// Generated from schemas/jsonschema-error-codes.json by scripts/embed-json.mjs (run by the build); edit the JSON file.
/** The parsed `schemas/jsonschema-error-codes.json`. */
export const schemaCodeTableDocument: unknown = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://mcp-envelope.dev/schemas/v1/jsonschema-error-codes.json",
  "title": "JSON Schema keyword to SCHEMA_* error code",
  "description": "When a tool call's arguments fail the tool's published JSON Schema, the envelope's error_code comes from this table, keyed by the failing keyword. Every server uses the same table, so the same mistake gives the same code everywhere. Templates take {path} and the keyword's parameters; servers may add hints after the one given here, never change the code.",
  "contract_version": 1,
  "error_kind": "mcp_input_validation",
  "retryable": false,
  "path_rule": "{path} is a JSON pointer without the leading slash; a top-level field is its bare name; a combinator failure (oneOf, anyOf, allOf) is reported at the combinator's parent path.",
  "mapping": {
    "type": {
      "error_code": "SCHEMA_TYPE_MISMATCH",
      "summary_template": "{path} should be {expected_type}, not {received_type}.",
      "hint": "Send {path} as {expected_type}."
    },
    "required": {
      "error_code": "SCHEMA_REQUIRED",
      "summary_template": "{path} is required and was not sent.",
      "hint": "Add {path}; the tool cannot run without it."
    },
    "maxItems": {
      "error_code": "SCHEMA_MAX_ITEMS",
      "summary_template": "{path} holds {actual} items; at most {limit} are allowed.",
      "hint": "Send no more than {limit} items in {path}; split the call if you need more."
    },
    "minItems": {
      "error_code": "SCHEMA_MIN_ITEMS",
      "summary_template": "{path} holds {actual} items; at least {limit} are needed.",
      "hint": "Send at least {limit} items in {path}."
    },
    "maxLength": {
      "error_code": "SCHEMA_MAX_LENGTH",
      "summary_template": "{path} is {actual} characters long; at most {limit} are allowed.",
      "hint": "Cut {path} to {limit} characters or fewer."
    },
    "minLength": {
      "error_code": "SCHEMA_MIN_LENGTH",
      "summary_template": "{path} is {actual} characters long; at least {limit} are needed.",
      "hint": "Make {path} at least {limit} characters long."
    },
    "maximum": {
      "error_code": "SCHEMA_MAXIMUM",
      "summary_template": "{path} is above its maximum of {limit}.",
      "hint": "Send a value for {path} no greater than {limit}."
    },
    "minimum": {
      "error_code": "SCHEMA_MINIMUM",
      "summary_template": "{path} is below its minimum of {limit}.",
      "hint": "Send a value for {path} no smaller than {limit}."
    },
    "enum": {
      "error_code": "SCHEMA_ENUM_MISMATCH",
      "summary_template": "{path} is not one of the allowed values.",
      "hint": "Pick {path} from: {allowed}."
    },
    "pattern": {
      "error_code": "SCHEMA_PATTERN_MISMATCH",
      "summary_template": "{path} does not have the required form.",
      "hint": "Reformat {path} to match the pattern {pattern}."
    },
    "format": {
      "error_code": "SCHEMA_FORMAT_INVALID",
      "summary_template": "{path} is not a valid {format}.",
      "hint": "Send {path} as a valid {format}."
    },
    "additionalProperties": {
      "error_code": "SCHEMA_ADDITIONAL_PROPERTIES",
      "summary_template": "{path} has a key the schema does not define: {extra}.",
      "hint": "Drop {extra}, or check its spelling against the tool's schema."
    },
    "oneOf": {
      "error_code": "SCHEMA_ONE_OF_FAILED",
      "summary_template": "{path} must match exactly one of the schema's alternatives and does not.",
      "hint": "Shape {path} to fit exactly one of the alternatives in the schema."
    },
    "anyOf": {
      "error_code": "SCHEMA_ANY_OF_FAILED",
      "summary_template": "{path} matches none of the schema's alternatives.",
      "hint": "Shape {path} to fit at least one of the alternatives in the schema."
    },
    "allOf": {
      "error_code": "SCHEMA_ALL_OF_FAILED",
      "summary_template": "{path} breaks one of the constraints it must meet together.",
      "hint": "Make {path} satisfy every constraint of the schema at once."
    },
    "uniqueItems": {
      "error_code": "SCHEMA_UNIQUE_ITEMS",
      "summary_template": "{path} contains the same item more than once.",
      "hint": "Remove the repeated items from {path}."
    },
    "const": {
      "error_code": "SCHEMA_CONST_MISMATCH",
      "summary_template": "{path} must be exactly {allowed}.",
      "hint": "Set {path} to {allowed}."
    },
    "multipleOf": {
      "error_code": "SCHEMA_MULTIPLE_OF",
      "summary_template": "{path} is not a multiple of {limit}.",
      "hint": "Send a multiple of {limit} for {path}."
    }
  },
  "fallback": {
    "error_code": "SCHEMA_VALIDATION_FAILED",
    "summary_template": "{path} failed the schema keyword {keyword}.",
    "hint": "Compare {path} with the tool's input schema and correct it."
  },
  "domain_codes": {
    "SCHEMA_IDENTITY_NOT_FOUND": {
      "server": "sp",
      "summary_template": "No identity {value} is available to this server.",
      "hint": "List the available identities and pick one of them."
    },
    "SCHEMA_PROFILE_NOT_FOUND": {
      "server": "ads",
      "summary_template": "No advertising profile {value} is available to this account.",
      "hint": "List the account's profiles and pick one of their profileId values."
    }
  }
};
