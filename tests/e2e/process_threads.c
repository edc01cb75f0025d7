/* Two threads that each make one system call, then the process exits. */
#include <pthread.h>
#include <unistd.h>

static void *work(void *arg)
{
	(void)arg;
	return (void *)(long)getppid();
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
