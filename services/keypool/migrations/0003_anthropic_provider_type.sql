-- The anthropic provider type: Anthropic's Messages API, whose secret goes in x-api-key.
ALTER TABLE provider_keys DROP CONSTRAINT IF EXISTS provider_keys_provider_type_check;
ALTER TABLE provider_keys ADD CONSTRAINT provider_keys_provider_type_check
  CHECK (provider_type IN ('standard', 'cloud_a', 'cloud_b', 'anthropic'));
