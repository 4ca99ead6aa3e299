/**
 * §8.4.1 rule 1: fields marked REQUIRED stay in the signed form even when
 * they hold the default value. These are the `(google.api.field_behavior) =
 * REQUIRED` fields of proto/a2a/v1/a2a.proto in the messages an AgentCard
 * reaches (gen/ is built without the google.api options, so the table is
 * kept here; test/unit/card-signature/card-signature.test.ts checks it against the proto).
 */
export const CARD_REQUIRED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "lf.a2a.v1.AgentCard": ["name", "description", "supported_interfaces", "version", "capabilities", "default_input_modes", "default_output_modes", "skills"],
  "lf.a2a.v1.AgentInterface": ["url", "protocol_binding", "protocol_version"],
  "lf.a2a.v1.AgentProvider": ["url", "organization"],
  "lf.a2a.v1.AgentSkill": ["id", "name", "description", "tags"],
  "lf.a2a.v1.AgentCardSignature": ["protected", "signature"],
  "lf.a2a.v1.APIKeySecurityScheme": ["location", "name"],
  "lf.a2a.v1.HTTPAuthSecurityScheme": ["scheme"],
  "lf.a2a.v1.OAuth2SecurityScheme": ["flows"],
  "lf.a2a.v1.OpenIdConnectSecurityScheme": ["open_id_connect_url"],
  "lf.a2a.v1.AuthorizationCodeOAuthFlow": ["authorization_url", "token_url", "scopes"],
  "lf.a2a.v1.ClientCredentialsOAuthFlow": ["token_url", "scopes"],
  "lf.a2a.v1.DeviceCodeOAuthFlow": ["device_authorization_url", "token_url", "scopes"],
};
