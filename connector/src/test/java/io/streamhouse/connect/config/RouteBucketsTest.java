package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** The bucket count of created Paimon tables: set, or by how many tables the route names. */
class RouteBucketsTest {
  private static int buckets(String... pairs) {
    return new StreamhouseSinkConfig(SinkConfigValidatorTest.config(pairs))
        .routes()
        .get(0)
        .buckets();
  }

  @Test
  void aRouteNamingOneTableGetsFourBuckets() {
    assertThat(buckets("route.r.topics", "orders", "route.r.table", "sales.orders")).isEqualTo(4);
    assertThat(buckets("route.r.topics", "orders")).as("${topic} of one topic").isEqualTo(4);
  }

  @Test
  void aRouteNamingManyTablesGetsOneBucketPerTable() {
    assertThat(buckets("route.r.table.field", "table", "route.r.table.allow-regex", "t[0-9]+"))
        .isEqualTo(1);
    assertThat(buckets("route.r.topics", "orders,ctl")).as("${topic} of two topics").isEqualTo(1);
    assertThat(buckets("route.r.topics", "", "route.r.topics.regex", "cdc\\..*", "topics", "cdc.a"))
        .as("${topic} of a topic regex")
        .isEqualTo(1);
    assertThat(buckets("route.r.topics", "orders,ctl", "route.r.table", "sales.all"))
        .as("two topics into one table")
        .isEqualTo(4);
  }

  @Test
  void aBucketCountThatIsSetAlwaysWins() {
    assertThat(
            buckets(
                "route.r.table.field",
                "table",
                "route.r.table.allow-regex",
                "t[0-9]+",
                "route.r.buckets",
                "8"))
        .isEqualTo(8);
    assertThat(buckets("route.r.topics", "orders", "route.r.buckets", "1")).isEqualTo(1);
    assertThatThrownBy(() -> buckets("route.r.buckets", "0"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("route.r.buckets");
  }
}
