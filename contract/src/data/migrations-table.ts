// Generated from migrations.json by scripts/embed-json.mjs (run by the build); edit the JSON file.
/** The parsed `migrations.json`. */
export const migrationsDocument: unknown = {
  "$comment": "Every reclassification of an error_kind and its one-release legacy_error_kind window: the first release that ships an entry emits legacy_error_kind, the next release (whatever its number) must ship without the entry. Every entry names its servers (a server that joins later never inherits a window) and the envelope version it shows in (contract_version, default 1). Read by @mcp-envelope/contract (MIGRATIONS) and by the release check, which knows the releases from the git tags. cutover_date is the date each affected server's CHANGELOG names. Edit with care: CODEOWNERS protects this file.",
  "migrations": [
    {
      "id": "sp-upstream-429-to-rate-limited",
      "error_codes": [
        "RATE_LIMITED"
      ],
      "servers": [
        "sp"
      ],
      "conditions": [
        "upstream_http"
      ],
      "from_kind": "sp_api_http",
      "to_kind": "rate_limited",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "ads-upstream-429-to-rate-limited",
      "error_codes": [
        "RATE_LIMITED"
      ],
      "servers": [
        "ads"
      ],
      "conditions": [
        "upstream_http"
      ],
      "from_kind": "ads_api_http",
      "to_kind": "rate_limited",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "unknown-tool-to-tool-not-found",
      "error_codes": [
        "TOOL_NOT_FOUND"
      ],
      "servers": [
        "sp",
        "ads"
      ],
      "from_kind": "mcp_input_validation",
      "to_kind": "tool_not_found",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "sp-401-403-to-auth-error",
      "error_codes": [
        "SP_API_HTTP_401",
        "SP_API_HTTP_403"
      ],
      "servers": [
        "sp"
      ],
      "conditions": [
        "upstream_http"
      ],
      "from_kind": "sp_api_http",
      "to_kind": "auth_error",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "sp-api-http-to-upstream-http",
      "servers": [
        "sp"
      ],
      "contract_version": 2,
      "from_kind": "sp_api_http",
      "to_kind": "upstream_http",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "sp-api-client-to-upstream-client",
      "servers": [
        "sp"
      ],
      "contract_version": 2,
      "from_kind": "sp_api_client",
      "to_kind": "upstream_client",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "ads-api-http-to-upstream-http",
      "servers": [
        "ads"
      ],
      "contract_version": 2,
      "from_kind": "ads_api_http",
      "to_kind": "upstream_http",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    },
    {
      "id": "ads-api-client-to-upstream-client",
      "servers": [
        "ads"
      ],
      "contract_version": 2,
      "from_kind": "ads_api_client",
      "to_kind": "upstream_client",
      "introduced_in": "0.1.0",
      "cutover_date": "2027-03-01"
    }
  ]
};
