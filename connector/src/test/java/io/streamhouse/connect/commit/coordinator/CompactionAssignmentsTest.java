package io.streamhouse.connect.commit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CompactionAssignmentsTest {
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");
  private static final CompactionJob BUCKET_0 = new CompactionJob("bucket 0", new byte[] {0});
  private final CompactionAssignments assignments = new CompactionAssignments("conn", 60_000);

  @Test
  void aJobWithoutAResultGoesOutAgainAfterTheTimeoutAndItsLateResultIsPassedOver() {
    ControlEvent.CompactRequest first =
        assignments.handOut(1, TABLE, List.of(BUCKET_0), Set.of(0, 1), 0).get(0);
    assertThat(assignments.handOut(2, TABLE, List.of(BUCKET_0), Set.of(0, 1), 30_000))
        .as("still out")
        .isEmpty();
    assertThat(assignments.reissueExpired(2, Set.of(0, 1), 59_999)).isEmpty();

    List<ControlEvent.CompactRequest> again = assignments.reissueExpired(3, Set.of(1, 2), 60_000);
    assertThat(again)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.jobId()).isNotEqualTo(first.jobId());
              assertThat(r.jobs()).containsExactly(BUCKET_0);
              assertThat(r.commitId()).isEqualTo(3);
            });
    ControlEvent.CompactRequest second = again.get(0);
    assertThat(assignments.isResultOfJobOut(result(first)))
        .as("the first job's late result")
        .isFalse();
    assertThat(assignments.isResultOfJobOut(result(second))).isTrue();
    assignments.decided(List.of(first.jobId()));
    assertThat(assignments.outstanding()).as("the second job still holds the bucket").isEqualTo(1);
    assertThat(assignments.handOut(4, TABLE, List.of(BUCKET_0), Set.of(0, 1), 60_001)).isEmpty();

    assignments.decided(List.of(second.jobId()));
    assertThat(assignments.outstanding()).isZero();
    assertThat(assignments.isResultOfJobOut(result(second)))
        .as("a replay after the decision")
        .isFalse();
  }

  private static ControlEvent.CompactionResultChunk result(ControlEvent.CompactRequest request) {
    return new ControlEvent.CompactionResultChunk(
        "conn",
        request.commitId(),
        request.taskId(),
        request.jobId(),
        TABLE,
        1,
        1,
        0,
        10,
        0,
        1,
        new byte[] {1});
  }

  @Test
  void aJobForABucketThatIsOutGoesOutOnceTheJobOutIsDecided() {
    ControlEvent.CompactRequest first =
        assignments.handOut(1, TABLE, List.of(BUCKET_0), Set.of(0), 0).get(0);
    // A later commit adds files to the bucket: the job out may have read it before them.
    assertThat(assignments.handOut(2, TABLE, List.of(BUCKET_0), Set.of(0), 10)).isEmpty();
    assertThat(assignments.handOutDeferred(3, Set.of(0), 20)).as("still out").isEmpty();
    assignments.decided(List.of(first.jobId()));
    assertThat(assignments.handOutDeferred(4, Set.of(0), 30))
        .singleElement()
        .satisfies(r -> assertThat(r.jobs()).containsExactly(BUCKET_0));
    assertThat(assignments.handOutDeferred(5, Set.of(0), 40)).as("once").isEmpty();
  }

  @Test
  void noTaskAnsweredNoJobGoesOut() {
    assertThat(assignments.handOut(1, TABLE, List.of(BUCKET_0), Set.of(), 0)).isEmpty();
    assertThat(assignments.outstanding()).isZero();
  }

  @Test
  void aBucketGoesToTheSameTaskWhileTheTasksStayTheSameAndTheJobsOfATableSpreadOverThem() {
    ControlEvent.CompactRequest first =
        assignments.handOut(1, TABLE, List.of(BUCKET_0), Set.of(0, 1, 2), 0).get(0);
    assignments.decided(List.of(first.jobId()));
    ControlEvent.CompactRequest next =
        assignments.handOut(2, TABLE, List.of(BUCKET_0), Set.of(2, 0, 1), 10).get(0);
    assertThat(next.taskId()).isEqualTo(first.taskId());

    List<CompactionJob> many =
        java.util.stream.IntStream.range(0, 64)
            .mapToObj(i -> new CompactionJob("bucket " + i, new byte[] {(byte) i}))
            .toList();
    assertThat(
            new CompactionAssignments("conn", 60_000).handOut(3, TABLE, many, Set.of(0, 1, 2), 0))
        .extracting(ControlEvent.CompactRequest::taskId)
        .containsExactlyInAnyOrder(0, 1, 2);
  }
}
