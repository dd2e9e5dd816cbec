package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

class CatalogConfigDefTest {
  @Test
  void everyCatalogSecretIsAPasswordAndReachesTheCatalogInClear() {
    ConfigDef def = CatalogConfigDef.forName("lake");
    for (String secret :
        new String[] {
          "credential", "token", "jdbc.password", "s3.secret-access-key", "s3.secret-key"
        }) {
      assertThat(def.configKeys().get("catalog.lake." + secret).type)
          .as(secret)
          .isEqualTo(ConfigDef.Type.PASSWORD);
    }
    AbstractConfig parsed =
        new AbstractConfig(
            def,
            Map.of(
                "catalog.lake.format",
                "paimon",
                "catalog.lake.type",
                "filesystem",
                "catalog.lake.s3.secret-key",
                "s3cr3t",
                "catalog.lake.s3.access-key",
                "me"));
    assertThat(parsed.values().get("catalog.lake.s3.secret-key").toString())
        .doesNotContain("s3cr3t");
    CatalogSettings settings = CatalogSettings.from("lake", parsed);
    assertThat(settings.toString()).doesNotContain("s3cr3t");
    assertThat(settings.properties())
        .containsEntry("s3.secret-key", "s3cr3t")
        .containsEntry("s3.access-key", "me");
  }
}
