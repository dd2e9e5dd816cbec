package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The last record counts as read once every partition has a task consumer with no lag. */
class LastRecordReadTest {
  private final Map<ObjectName, Double> lags = new HashMap<>();
  private String askedFor;
  private final LastRecordRead read =
      new LastRecordRead(
          (pattern, attribute) -> {
            askedFor = pattern + " " + attribute;
            return lags;
          },
          "iceberg-2-123",
          "bench",
          2);

  @Test
  void everyPartitionNeedsATaskConsumerThatReadItsLastRecord() throws Exception {
    lag("connector-consumer-iceberg-2-123-1", 0, 0);
    lag("connector-consumer-iceberg-2-123-1", 1, 1500);
    assertThat(read.allRead()).isFalse();
    assertThat(askedFor)
        .isEqualTo(
            "kafka.consumer:type=consumer-fetch-manager-metrics,"
                + "client-id=connector-consumer-iceberg-2-123-*,topic=bench,partition=* records-lag");

    lag("connector-consumer-iceberg-2-123-0", 1, 0); // the new owner after a rebalance
    assertThat(read.allRead()).isTrue();
  }

  @Test
  void anotherConnectorsConsumerDoesNotCount() throws Exception {
    lag("connector-consumer-iceberg-2-123-0", 0, 0);
    lag("connector-consumer-iceberg-2-123-warm-0", 1, 0);
    assertThat(read.allRead()).isFalse();
  }

  private void lag(String client, int partition, double lag) throws MalformedObjectNameException {
    lags.put(
        new ObjectName(
            "kafka.consumer:type=consumer-fetch-manager-metrics,client-id="
                + client
                + ",topic=bench,partition="
                + partition),
        lag);
  }
}
