# Build and run kube-scheduler-cpp on Debian 12, the platform the project is built and tested on.
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/setup.sh scripts/setup.sh
RUN scripts/setup.sh
COPY . .
RUN cmake --preset release -DKS_BUILD_TESTS=OFF -DKS_BUILD_BENCHMARKS=OFF \
 && cmake --build --preset release --target kube-scheduler-cpp

FROM debian:bookworm-slim
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libyaml-cpp0.7 libspdlog1.10 libprometheus-cpp-core1.0 libre2-9 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/release/cmd/kube-scheduler-cpp/kube-scheduler-cpp /usr/local/bin/kube-scheduler-cpp
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kube-scheduler-cpp"]
